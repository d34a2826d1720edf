import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { createAccount, createSite, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import type { FakeUpstream } from './fake-upstream.ts';
import { relayFixture, type RelayFixture } from './setup.ts';

let fx: RelayFixture;
let upstream: FakeUpstream;
let admin: TestAccount;
let ann: TestAccount;

before(async () => {
  fx = await relayFixture();
  upstream = await fx.fake();
  await fx.channel({ baseUrl: upstream.base, models: ['budget-m', 'cny-m', 'unpriced-m', 'limit-m'] });
  admin = await createAccount(fx.app.db, { admin: true });
  ann = await createAccount(fx.app.db);
  const api = (body: unknown) => call(fx.app.url, 'POST', '/api/v1/relay/prices', { session: admin.session, body });
  // 1 USD per million output tokens = 1000 nanos a token; input is free, so a call's cost is
  // exactly its output, and with max_tokens at the fake's 13 output tokens the reservation is exact.
  assert.equal((await api({ model: 'budget-m', currency: 'USD', input: '0', output: '1' })).status, 200);
  assert.equal((await api({ model: 'cny-m', currency: 'CNY', input: '1', output: '1' })).status, 200);
});
after(() => fx.close());

const own = (method: string, path: string, body?: unknown) =>
  call(fx.app.url, method, path, { session: ann.session, body });
const chat = (key: string, model: string, extra: Record<string, unknown> = {}) =>
  call(fx.app.url, 'POST', '/v1/chat/completions', {
    bearer: key,
    body: { model, messages: [{ role: 'user', content: 'hi' }], ...extra },
  });
const forwarded = (model: string) => upstream.received.filter((r) => r.body?.model === model).length;

test('a key carries its own limits, budget, expiry and site, set at creation and changed by PATCH', async () => {
  const site = await createSite(fx.app.url, ann);
  const made = await own('POST', '/api/v1/me/relay-keys', {
    name: 'full',
    models: ['budget-m'],
    requestsPerMinute: 30,
    tokensPerMinute: 5000,
    budget: { amount: '2.5', currency: 'USD', period: 'month' },
    expiresAt: '2099-01-01T00:00:00Z',
    siteId: site,
  });
  assert.equal(made.status, 200, made.text);
  assert.deepEqual(
    [made.body.requestsPerMinute, made.body.tokensPerMinute, made.body.budget, made.body.expiresAt, made.body.siteId],
    [30, 5000, { amount: '2.5', currency: 'USD', period: 'month' }, '2099-01-01T00:00:00.000Z', site],
  );
  const patched = await own('PATCH', `/api/v1/me/relay-keys/${made.body.id}`, {
    tokensPerMinute: null,
    budget: { amount: '0.00001', currency: 'USD', period: 'day' },
  });
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual(
    [
      patched.body.name,
      patched.body.requestsPerMinute,
      patched.body.tokensPerMinute,
      patched.body.budget,
      patched.body.siteId,
    ],
    ['full', 30, null, { amount: '0.00001', currency: 'USD', period: 'day' }, site],
  );

  const bob = await createAccount(fx.app.db);
  const foreignSite = await createSite(fx.app.url, bob);
  const bad = await own('POST', '/api/v1/me/relay-keys', {
    name: 'bad',
    models: ['*'],
    requestsPerMinute: 0,
    budget: { amount: '0', currency: 'usd', period: 'week' },
    expiresAt: '2020-01-01T00:00:00Z',
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body.errors.map((e: any) => e.path).sort(), [
    '/budget/amount',
    '/budget/currency',
    '/budget/period',
    '/expiresAt',
    '/requestsPerMinute',
  ]);
  const foreign = await own('PATCH', `/api/v1/me/relay-keys/${made.body.id}`, { siteId: foreignSite });
  assert.deepEqual(foreign.body.errors, [{ path: '/siteId', message: 'not one of your sites' }]);
});

test('a key is refused once it has expired', async () => {
  const expiresAt = new Date(Date.now() + 1500);
  const made = (
    await own('POST', '/api/v1/me/relay-keys', { name: 'short', models: ['*'], expiresAt: expiresAt.toISOString() })
  ).body;
  const refused = await eventually(
    async () => {
      const r = await chat(made.key, 'limit-m');
      return r.status === 401 ? r : undefined;
    },
    10_000,
    'the key to expire',
  );
  assert.ok(Date.now() >= expiresAt.getTime());
  assert.match(refused.body.error.message, /expired/);
});

test("requests and tokens per minute: the key's own, else its group's, answer 429 in OpenAI shape with Retry-After", async () => {
  const rpm = await fx.key(['*'], { rpm: 2 });
  assert.equal((await chat(rpm.key, 'limit-m')).status, 200);
  assert.equal((await chat(rpm.key, 'limit-m')).status, 200);
  const third = await chat(rpm.key, 'limit-m');
  assert.equal(third.status, 429);
  assert.deepEqual([third.body.error.type, third.body.error.code], ['rate_limit_error', 'rate_limited']);
  assert.ok(Number(third.headers.get('retry-after')) >= 1);

  // The fake reports more than 10 tokens for one call: the bucket is empty after it.
  const tpm = await fx.key(['*'], { tpm: 10 });
  assert.equal((await chat(tpm.key, 'limit-m')).status, 200);
  const next = await eventually(
    async () => {
      const r = await chat(tpm.key, 'limit-m');
      return r.status === 429 ? r : undefined;
    },
    5000,
    'the tokens bucket to be charged',
  );
  assert.equal(next.body.error.code, 'rate_limited');
  assert.match(next.body.error.message, /10 tokens per minute/);
  assert.ok(Number(next.headers.get('retry-after')) >= 1);

  assert.equal(
    (
      await call(fx.app.url, 'PUT', '/api/v1/relay/groups/slow', {
        session: admin.session,
        body: { models: ['*'], requestsPerMinute: 1 },
      })
    ).status,
    200,
  );
  const slow = await fx.key(['*'], {});
  await fx.app.db.none("UPDATE relay_keys SET key_group = 'slow' WHERE id = $1", [slow.id]);
  assert.equal((await chat(slow.key, 'limit-m')).status, 200);
  assert.equal((await chat(slow.key, 'limit-m')).status, 429);
});

test('50 concurrent calls against a budget covering 10: exactly 10 are forwarded, the rest get insufficient_quota', async () => {
  const { id, key } = await fx.key(['*'], { budgetNanos: 10 * 13_000, budgetCurrency: 'USD', budgetPeriod: 'day' });
  const before = forwarded('budget-m');
  const answers = await Promise.all(Array.from({ length: 50 }, () => chat(key, 'budget-m', { max_tokens: 13 })));
  const ok = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status === 429);
  assert.equal(ok.length + refused.length, 50, answers.map((a) => a.status).join(','));
  assert.equal(forwarded('budget-m') - before, ok.length);
  assert.equal(ok.length, 10);
  for (const r of refused)
    assert.deepEqual(
      [r.body.error.type, r.body.error.code, r.body.error.param],
      ['insufficient_quota', 'insufficient_quota', null],
    );
  assert.ok(ok.every((a) => a.body.usage.completion_tokens === 13));
  // Every call has settled at its real cost: the budget is spent to the nano, not past it.
  const spent = await eventually(
    async () => {
      const r = await fx.app.db.one<{ n: number; nanos: number }>(
        'SELECT count(*)::int AS n, coalesce(sum(cost_nanos), 0)::bigint AS nanos FROM relay_usage WHERE key_id = $1 AND status = 200',
        [id],
      );
      return r.n === 10 ? r.nanos : undefined;
    },
    10_000,
    'the usage rows',
  );
  assert.equal(spent, 130_000);
  const after = await chat(key, 'budget-m', { max_tokens: 1 });
  assert.equal(after.status, 429);
  assert.equal(forwarded('budget-m') - before, 10);
});

test('a key with a budget is refused models without a price in its currency, unless the admin allowed unpriced calls', async () => {
  const { key } = await fx.key(['*'], { budgetNanos: 1_000_000_000, budgetCurrency: 'USD', budgetPeriod: 'total' });
  const unpriced = await chat(key, 'unpriced-m');
  assert.equal(unpriced.status, 403);
  assert.equal(unpriced.body.error.code, 'model_unpriced');
  const cny = await chat(key, 'cny-m');
  assert.equal(cny.status, 403);
  assert.match(cny.body.error.message, /priced in CNY/);
  // A key without a budget may call it, metered as unpriced.
  assert.equal((await chat((await fx.key()).key, 'unpriced-m')).status, 200);

  assert.equal(
    (
      await call(fx.app.url, 'POST', '/api/v1/relay/models', {
        session: admin.session,
        body: { id: 'unpriced-m', allowUnpriced: true },
      })
    ).status,
    200,
  );
  await eventually(
    async () => ((await chat(key, 'unpriced-m')).status === 200 ? true : undefined),
    5000,
    'unpriced calls to be allowed',
  );
});
