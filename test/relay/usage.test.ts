import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { createAccount, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import { relayFixture, type RelayFixture } from './setup.ts';

let fx: RelayFixture;
let admin: TestAccount;
let ann: TestAccount;
let bob: TestAccount;
let annKey: { id: string; key: string };
let bobKey: { id: string; key: string };

const as = (who: TestAccount, path: string, body?: unknown, method = body ? 'POST' : 'GET') =>
  call(fx.app.url, method, path, { session: who.session, body });

async function ownKey(who: TestAccount, name: string) {
  const made = await as(who, '/api/v1/me/relay-keys', { name, models: ['*'] });
  assert.equal(made.status, 200, made.text);
  return { id: made.body.id as string, key: made.body.key as string };
}

before(async () => {
  fx = await relayFixture();
  const upstream = await fx.fake();
  await fx.channel({ baseUrl: upstream.base, models: ['u-priced', 'u-unpriced'] });
  admin = await createAccount(fx.app.db, { admin: true });
  ann = await createAccount(fx.app.db);
  bob = await createAccount(fx.app.db);
  const priced = await as(admin, '/api/v1/relay/prices', {
    model: 'u-priced',
    currency: 'USD',
    input: '1',
    output: '3',
  });
  assert.equal(priced.status, 200, priced.text);
  annKey = await ownKey(ann, 'ann-ci');
  bobKey = await ownKey(bob, 'bob-ci');
});
after(() => fx.close());

/** A metered call written as the usage worker writes it, at a chosen instant. */
function usageRow(keyId: string, at: string, fields: Record<string, unknown>) {
  const pick = (name: string, otherwise: unknown) => (name in fields ? fields[name] : otherwise);
  return fx.app.db.none(
    `INSERT INTO relay_usage (id, at, request_id, key_id, model, endpoint, stream, status, input_tokens, output_tokens,
       cached_tokens, reasoning_tokens, ttfb_ms, duration_ms, cost_nanos, currency, unpriced)
     VALUES ($1, $2, 'req', $3, $4, 'chat', false, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      randomUUID(),
      at,
      keyId,
      pick('model', 'u-priced'),
      pick('status', 200),
      pick('input', 10),
      pick('output', 5),
      pick('cached', 2),
      pick('reasoning', 1),
      pick('ttfb', 10),
      pick('duration', 20),
      pick('cost', null),
      pick('currency', null),
      pick('unpriced', false),
    ],
  );
}

test("an account's usage of real calls: its own keys only, tokens and cost as metered", async () => {
  const chat = (key: string, model: string, extra: object = {}) =>
    call(fx.app.url, 'POST', '/v1/chat/completions', {
      bearer: key,
      body: { model, messages: [{ role: 'user', content: 'four words right here' }], ...extra },
    });
  for (let i = 0; i < 3; i++) assert.equal((await chat(annKey.key, 'u-priced')).status, 200);
  assert.equal((await chat(annKey.key, 'u-priced', { stream: true })).status, 200);
  assert.equal((await chat(annKey.key, 'u-unpriced')).status, 200);
  assert.equal((await chat(annKey.key, 'u-priced', { reasoning_effort: 'ludicrous' })).status, 400);
  assert.equal((await chat(bobKey.key, 'u-priced')).status, 200);
  const stored = await eventually(async () => {
    const rows = await fx.app.db.any('SELECT * FROM relay_usage WHERE key_id IN ($1:csv)', [[annKey.id, bobKey.id]]);
    return rows.length === 7 ? rows : undefined;
  });

  const res = await as(ann, '/api/v1/me/relay-usage?tz=Pacific/Auckland');
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.window.tz, 'Pacific/Auckland');
  assert.equal(res.body.days.length, 30);
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Auckland' }).format(new Date());
  assert.equal(res.body.days.at(-1), today);
  assert.deepEqual(
    res.body.rows.map((r: any) => [r.day, r.keyName, r.model, r.calls, r.errors, r.unpricedCalls]),
    [
      [today, 'ann-ci', 'u-priced', 5, 1, 0],
      [today, 'ann-ci', 'u-unpriced', 1, 0, 1],
    ],
  );
  const annRows = stored.filter((r) => r.key_id === annKey.id);
  const sum = (f: string, rows = annRows) => rows.reduce((n, r) => n + (r[f] ?? 0), 0);
  const [total] = res.body.totals;
  assert.equal(total.calls, 6);
  assert.deepEqual(total.tokens, {
    input: sum('input_tokens'),
    cached: sum('cached_tokens'),
    output: sum('output_tokens'),
    reasoning: sum('reasoning_tokens'),
  });
  assert.ok(total.tokens.input > 0 && total.tokens.reasoning > 0);
  const nanos = sum('cost_nanos');
  assert.ok(nanos > 0);
  assert.deepEqual(total.cost, { USD: (nanos / 1e9).toString() });
  // The unpriced model's row has no cost at all, not a cost of 0.
  assert.deepEqual(res.body.rows[1].cost, {});
  assert.ok(total.ttfbMs.p50 <= total.ttfbMs.p95 && total.durationMs.p50 <= total.durationMs.p95);

  // The admin sees every key; an account cannot use the admin's report.
  const all = await as(admin, `/api/v1/relay/usage?model=u-priced&tz=UTC`);
  assert.equal(all.status, 200, all.text);
  assert.deepEqual(all.body.rows.map((r: any) => r.keyName).sort(), ['ann-ci', 'bob-ci']);
  assert.equal((await as(ann, '/api/v1/relay/usage')).status, 403);
  // Another account's key is not found in one's own report.
  const foreign = await as(ann, `/api/v1/me/relay-usage?keyId=${bobKey.id}`);
  assert.deepEqual([foreign.status, foreign.body.rows, foreign.body.totals], [200, [], []]);
});

test('days are cut in the time zone asked for; costs per currency; p50/p95; 499 is not an error', async () => {
  const { id } = await ownKey(ann, 'ann-tz');
  // 20:00 UTC on 1 Jan is 04:00 on 2 Jan in Shanghai.
  await usageRow(id, '2026-01-01T10:00:00Z', { cost: 1_500_000_000, currency: 'USD', duration: 10, ttfb: 1 });
  await usageRow(id, '2026-01-01T20:00:00Z', { cost: 1, currency: 'USD', duration: 20, ttfb: 2 });
  await usageRow(id, '2026-01-01T21:00:00Z', { cost: 7, currency: 'CNY', duration: 30, ttfb: null });
  await usageRow(id, '2026-01-01T22:00:00Z', { status: 499, duration: 40, ttfb: null, input: null, output: null });
  await usageRow(id, '2026-01-01T23:00:00Z', { status: 502, unpriced: true, duration: 50, ttfb: 5 });
  const q = (tz: string) => as(ann, `/api/v1/me/relay-usage?keyId=${id}&from=2026-01-01&to=2026-01-03&tz=${tz}`);

  const utc = (await q('UTC')).body;
  assert.deepEqual(utc.days, ['2026-01-01', '2026-01-02']);
  assert.equal(utc.totals.length, 1);
  const day = utc.totals[0];
  assert.deepEqual([day.day, day.calls, day.errors, day.cancelled, day.unpricedCalls], ['2026-01-01', 5, 1, 1, 1]);
  assert.deepEqual(day.cost, { USD: '1.500000001', CNY: '0.000000007' });
  assert.deepEqual(day.tokens, { input: 40, cached: 10, output: 20, reasoning: 5 });
  // percentile_cont over 10, 20, 30, 40, 50 ms; ttfb over the calls that sent a byte (1, 2, 5).
  assert.deepEqual(day.durationMs, { p50: 30, p95: 48 });
  assert.deepEqual(day.ttfbMs, { p50: 2, p95: 4.7 });

  const shanghai = (await q('Asia/Shanghai')).body;
  assert.deepEqual(
    shanghai.totals.map((t: any) => [t.day, t.calls, t.cost]),
    [
      ['2026-01-01', 1, { USD: '1.5' }],
      ['2026-01-02', 4, { USD: '0.000000001', CNY: '0.000000007' }],
    ],
  );

  const bad = await as(ann, '/api/v1/me/relay-usage?tz=Mars/Olympus&keyId=nope');
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body.errors.map((e: any) => e.path).sort(), ['query.keyId', 'query.tz']);
});
