import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { unitEconomics } from '../../src/analytics/unit-economics.ts';
import type { Window } from '../../src/analytics/window.ts';
import { hashSecret } from '../../src/auth/secrets.ts';
import { newRelayKey } from '../../src/relay/keys.ts';
import {
  insertChannel,
  insertKey,
  insertPrice,
  insertUsage,
  NO_KEY_SETTINGS,
  upsertModel,
} from '../../src/relay/repo.ts';
import { UsageRowSchema } from '../../src/relay/usage-job.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/eventually.ts';
import { createCredential } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import { ingestSite, type IngestSite } from '../ingest/fixtures.ts';
import { startFakeUpstream, type FakeUpstream } from '../relay/fake-upstream.ts';
import { ingest, view, waitForRollups } from './fixtures.ts';

/**
 * A site whose relay key made model calls for its customers, and whose backend ingested
 * their payments. Prices are chosen so each figure is easy to work out by hand from the
 * tokens each call reported: `big` costs 100 cents per input token and 200 per output token,
 * `tiny` one nano per token (so a day of it is rounded up to 1 cent), `yuan` 100 fen per
 * token, `free` has no price.
 */
let app: TestApp;
let upstream: FakeUpstream;
let site: IngestSite;
let readKey: string;
let analyticsOnly: string;
let siteKey: string;
let window: Record<string, string>;
/** What each customer's calls reported, keyed by customer ('' for none). */
const used = new Map<string, { model: string; input: number; output: number }[]>();

const centsOf = (model: string, input: number, output: number) =>
  model === 'big' ? 100 * input + 200 * output : model === 'yuan' ? 100 * (input + output) : 0;
const nanosOf = (model: string, input: number, output: number) =>
  model === 'big' ? input * 1e9 + output * 2e9 : model === 'yuan' ? (input + output) * 1e9 : input + output;

async function chat(key: string, model: string, content: string, extra: object = {}, headers = {}) {
  return call(app.url, 'POST', '/v1/chat/completions', {
    bearer: key,
    headers,
    body: { model, messages: [{ role: 'user', content }], ...extra },
  });
}

async function metered(customer: string, model: string, content: string, extra: object = {}, headers = {}) {
  const r = await chat(siteKey, model, content, extra, headers);
  assert.equal(r.status, 200, r.text);
  const list = used.get(customer) ?? used.set(customer, []).get(customer)!;
  list.push({ model, input: r.body.usage.prompt_tokens, output: r.body.usage.completion_tokens });
}

before(async () => {
  app = await startTestApp({ workers: ['ingest', 'rollup', 'usage'] });
  upstream = await startFakeUpstream();
  site = await ingestSite(app);
  readKey = await createCredential(app.url, site.account, site.siteId, 'read', ['analytics:read', 'finance:read']);
  analyticsOnly = await createCredential(app.url, site.account, site.siteId, 'read', ['analytics:read']);
  // Channel, models and prices before the first call: the relay reads its directory then.
  await insertChannel(app.db, {
    name: 'fake',
    baseUrl: upstream.base,
    apiKey: null,
    models: ['big', 'tiny', 'yuan', 'free'],
    protocols: ['chat'],
    priority: 0,
    weight: 1,
  });
  for (const id of ['big', 'tiny', 'yuan', 'free'])
    await upsertModel(app.db, { id, efforts: ['low', 'medium', 'high'], kind: 'chat', allowUnpriced: false });
  const price = (model: string, currency: string, input: number, output: number) =>
    insertPrice(app.db, {
      model,
      currency,
      inputNanos: input,
      cachedInputNanos: input,
      outputNanos: output,
      effectiveAt: null,
    });
  await price('big', 'USD', 1e15, 2e15);
  await price('tiny', 'USD', 1e6, 1e6);
  await price('yuan', 'CNY', 1e15, 1e15);

  // The account's key for its site, made the way a customer makes it.
  const made = await call(app.url, 'POST', '/api/v1/me/relay-keys', {
    session: site.account.session,
    body: { name: 'site key', models: ['*'], siteId: site.siteId },
  });
  assert.equal(made.status, 200, made.text);
  siteKey = made.body.key;
  const other = newRelayKey();
  await insertKey(app.db, {
    ...NO_KEY_SETTINGS,
    name: 'no site',
    keyHash: hashSecret(other),
    prefix: other.slice(0, 10),
    models: ['*'],
    accountId: null,
    group: 'default',
  });

  const now = Date.now();
  // A window of instants around now that stays inside one local day of its zone (relay spend
  // is rounded up per local day): UTC, or Shanghai (+08:00) when UTC midnight is near.
  const nearMidnight = now % 86_400_000 < 20 * 60_000 || now % 86_400_000 > 86_400_000 - 20 * 60_000;
  window = {
    from: new Date(now - 10 * 60_000).toISOString(),
    to: new Date(now + 10 * 60_000).toISOString(),
    tz: nearMidnight ? 'Asia/Shanghai' : 'UTC',
  };

  // The customer comes from X-Radar-Customer, else safety_identifier, else user.
  await metered('alice', 'big', 'hello there', { user: 'alice' });
  await metered(
    'bob',
    'big',
    'a much longer question with many more words in it',
    { user: 'mallory' },
    {
      'X-Radar-Customer': 'bob',
    },
  );
  await metered('carol', 'tiny', 'hi', { safety_identifier: 'carol', user: 'zed' });
  await metered('dave', 'yuan', 'ni hao', { user: 'dave' });
  await metered('erin', 'free', 'free question', { user: 'erin' });
  await metered('', 'big', 'nobody asked');
  // A header that could never be an external_user_id is refused, and costs nothing.
  const refused = await chat(siteKey, 'big', 'x', {}, { 'X-Radar-Customer': 'not an id!' });
  assert.equal(refused.status, 400, refused.text);
  assert.equal(refused.body.error.param, 'x-radar-customer');
  // A key of no site: its calls are no site's costs.
  assert.equal((await chat(other, 'big', 'elsewhere', { user: 'alice' })).status, 200);
  await eventually(
    async () => {
      const { n } = await app.db.one<{ n: number }>('SELECT count(*)::int AS n FROM relay_usage');
      return n === 8 ? true : undefined;
    },
    20_000,
    'the eight calls to be metered',
  );

  const at = new Date(now - 5 * 60_000).toISOString();
  const pay = (
    payment_id: string,
    user: string | null,
    amount_minor: number,
    currency = 'USD',
    status = 'succeeded',
  ) => ({
    payment_id,
    order_id: `o-${payment_id}`,
    ...(user ? { external_user_id: user } : {}),
    amount_minor,
    currency,
    status,
    occurred_at: at,
  });
  await ingest(app, site, 'payments', 'pay-1', [
    pay('p1', 'alice', 5000),
    pay('p2', 'alice', 9999, 'USD', 'failed'),
    pay('p3', 'bob', 10),
    pay('p4', 'carol', 100),
    pay('p5', 'dave', 100),
    pay('p6', 'frank', 300),
    pay('p7', null, 700),
  ]);
  await ingest(app, site, 'refunds', 'ref-1', [
    { refund_id: 'r1', payment_id: 'p1', amount_minor: 1000, currency: 'USD', status: 'succeeded', occurred_at: at },
  ]);
  const cost = (cost_id: string, category: string, amount_minor: number) => ({
    cost_id,
    category,
    amount_minor,
    currency: 'USD',
    period_start: at,
    period_end: at,
    occurred_at: at,
  });
  await ingest(app, site, 'costs', 'cost-1', [cost('k1', 'usage', 50), cost('k2', 'infrastructure', 20)]);
  await waitForRollups(app, site.siteId);
});
after(async () => {
  await upstream.close();
  await app.close();
});

const get = async (name: string, query: Record<string, string> = {}, key = readKey) => {
  const r = await view(app, site.siteId, name, key, { ...window, ...query });
  assert.equal(r.status, 200, r.text);
  return r.body;
};

/** Relay figures of the site's calls, worked out from the tokens each call reported. */
function relayFigures(customer?: string) {
  let usd = 0;
  let cny = 0;
  let usdNanos = 0;
  let cnyNanos = 0;
  for (const [who, calls] of used) {
    if (customer !== undefined && who !== customer) continue;
    for (const c of calls) {
      if (c.model === 'yuan') {
        cny += centsOf(c.model, c.input, c.output);
        cnyNanos += nanosOf(c.model, c.input, c.output);
      } else if (c.model !== 'free') {
        usd += centsOf(c.model, c.input, c.output);
        usdNanos += nanosOf(c.model, c.input, c.output);
      }
    }
  }
  // tiny's few nanos round up to one cent on its day.
  if (usdNanos % 1e7 !== 0) usd += 1;
  return { usd, cny, usdNanos, cnyNanos };
}

test('the customer header stays with Radar; the body fields reach the provider as sent', () => {
  const bob = upstream.received.find((r) => r.body.user === 'mallory');
  assert.ok(bob, 'the call made for bob reached the provider');
  assert.equal(bob.headers['x-radar-customer'], undefined);
  const carol = upstream.received.find((r) => r.body.safety_identifier === 'carol');
  assert.equal(carol?.body.user, 'zed');
});

test("a site key's model calls are the site's usage costs in overview, finance and timeseries, marked in coverage", async () => {
  const relay = relayFigures();
  const o = await get('overview');
  assert.deepEqual(o.data.costs, { CNY: relay.cny, USD: 70 + relay.usd });
  assert.deepEqual(o.coverage.relay, {
    category: 'usage',
    calls: 7,
    unpriced_calls: 1,
    spend_nanos: { CNY: relay.cnyNanos, USD: relay.usdNanos },
    days_with_calls: 1,
    last_call_at: o.coverage.relay.last_call_at,
  });
  assert.ok(Date.parse(o.coverage.relay.last_call_at) >= Date.parse(window.from));
  assert.deepEqual(o.currencies, ['CNY', 'USD']);

  const f = await get('finance');
  assert.deepEqual(f.data.costs.by_category, {
    infrastructure: { USD: 20 },
    usage: { CNY: relay.cny, USD: 50 + relay.usd },
  });
  // Net revenue: 5000 − 1000 + 10 + 100 + 100 + 300 + 700 = 5210.
  assert.deepEqual(f.data.net_revenue, { USD: 5210 });
  assert.deepEqual(f.data.margin, { CNY: -relay.cny, USD: 5210 - 70 - relay.usd });

  const t = await get('timeseries');
  const buckets = t.data.buckets.filter((b: any) => Object.keys(b.costs).length > 0);
  assert.equal(buckets.length, 1);
  assert.deepEqual(buckets[0].costs, { CNY: relay.cny, USD: 70 + relay.usd });

  // A window without the calls has no relay costs, and says so.
  const before = await get('overview', {
    from: new Date(Date.parse(window.from) - 3_600_000).toISOString(),
    to: window.from,
  });
  assert.deepEqual(before.data.costs, {});
  assert.equal(before.coverage.relay.calls, 0);
});

test('unit economics: revenue, spend, margin, calls and tokens per customer, per currency, never converted', async () => {
  const e = await get('unit-economics');
  const tokens = (who: string) =>
    (used.get(who) ?? []).reduce((s, c) => ({ input: s.input + c.input, output: s.output + c.output }), {
      input: 0,
      output: 0,
    });
  const row = (
    who: string,
    revenue: Record<string, number>,
    margin: Record<string, number> | null,
    reason: string | null,
  ) => {
    const r = relayFigures(who);
    const spend: Record<string, number> = {};
    const nanos: Record<string, number> = {};
    if (r.cnyNanos) [spend.CNY, nanos.CNY] = [r.cny, r.cnyNanos];
    if (r.usdNanos) [spend.USD, nanos.USD] = [r.usd, r.usdNanos];
    const calls = used.get(who) ?? [];
    return {
      external_user_id: who,
      revenue,
      spend,
      spend_nanos: nanos,
      margin,
      margin_reason: reason,
      calls: calls.length,
      unpriced_calls: calls.filter((c) => c.model === 'free').length,
      input_tokens: tokens(who).input,
      output_tokens: tokens(who).output,
    };
  };
  const alice = row('alice', { USD: 4000 }, { USD: 4000 - relayFigures('alice').usd }, null);
  const bob = row('bob', { USD: 10 }, { USD: 10 - relayFigures('bob').usd }, null);
  const carol = row('carol', { USD: 100 }, { USD: 99 }, null);
  const dave = row('dave', { USD: 100 }, null, 'currencies_differ');
  const frank = row('frank', { USD: 300 }, { USD: 300 }, null);
  assert.ok(bob.margin!.USD! < 0 && alice.margin!.USD! > 0, 'bob loses money, alice does not');

  assert.deepEqual(e.data.customers, {
    count: 6,
    with_margin: 4,
    negative_margin: 1,
    negative_margin_share: 0.25,
    margin_unknown: { currencies_differ: 1, unpriced_calls: 1 },
  });
  const bySpend = [alice, bob, carol].sort((a, b) => b.spend_nanos.USD! - a.spend_nanos.USD!);
  assert.deepEqual(e.data.top_spenders, [
    { currency: 'CNY', customers: [dave] },
    { currency: 'USD', customers: bySpend },
  ]);
  const byMargin = [alice, bob, carol, frank].sort((a, b) => a.margin!.USD! - b.margin!.USD!);
  assert.deepEqual(e.data.lowest_margins, [{ currency: 'USD', customers: byMargin }]);
  // The unpriced customer is listed nowhere by spend or margin, and counted apart.
  assert.ok(!JSON.stringify(e.data.top_spenders).includes('erin'));
  // Calls that named no customer (the refused one included, which cost nothing) and the
  // payment without a user.
  const nobody = relayFigures('');
  assert.deepEqual(e.data.unattributed, {
    ...row('', { USD: 700 }, { USD: 700 - nobody.usd }, null),
    external_user_id: null,
    calls: 2,
  });
  assert.deepEqual(e.data.totals.revenue, { USD: 5210 });
  assert.deepEqual(e.data.totals.spend, { CNY: relayFigures().cny, USD: relayFigures().usd });
  assert.equal(e.data.totals.calls, 7);
  assert.equal(e.data.totals.unpriced_calls, 1);
  assert.deepEqual(e.currencies, ['CNY', 'USD']);
  assert.equal(e.coverage.relay.calls, 7);
  assert.equal(e.coverage.families.payments.records, 7);
  assert.ok(e.freshness.as_of);

  // `limit` customers per list.
  const one = await get('unit-economics', { limit: '1' });
  assert.deepEqual(
    one.data.top_spenders.map((l: any) => l.customers.map((c: any) => c.external_user_id)),
    [['dave'], [bySpend[0]!.external_user_id]],
  );
});

test('unit economics split by customer into any number of parts adds up to one answer', async () => {
  const e = await get('unit-economics', { limit: '1' });
  const w = { from: Date.parse(e.coverage.window.from), to: Date.parse(e.coverage.window.to) } as Window;
  // Each part ranks its own customers: the lists must still be the first of all of them.
  for (const parts of [1, 2, 3, 5]) {
    const data = await unitEconomics(Array(parts).fill(app.db), site.siteId, w, 1);
    assert.deepEqual(JSON.parse(JSON.stringify(data)), e.data, `${parts} parts`);
  }
});

/**
 * A site's customer_economics rows, or the same figures worked out again from its calls,
 * payments and refunds (a refund counts for its payment's customer), without rows whose
 * contributions were all taken back.
 */
const economicsRows = (siteId: string, from: 'rollup' | 'raw') =>
  app.db.any(
    from === 'rollup'
      ? `SELECT grain, bucket, customer, currency, calls, unpriced_calls, input_tokens::int, output_tokens::int,
                cost_nanos::bigint, records, net_minor::int
         FROM customer_economics WHERE site_id = $1 AND (calls <> 0 OR records <> 0) ORDER BY 1, 2, 3, 4`
      : `SELECT g.grain, date_trunc(g.unit, at, 'UTC') AS bucket, customer, currency, sum(calls)::int AS calls,
                sum(unpriced)::int AS unpriced_calls, sum(input_tokens)::int AS input_tokens,
                sum(output_tokens)::int AS output_tokens, sum(cost_nanos)::bigint AS cost_nanos,
                sum(records)::int AS records, sum(net)::int AS net_minor
         FROM (
           SELECT at, coalesce(customer, '') AS customer, coalesce(currency, '') AS currency, 1 AS calls,
                  (unpriced OR (cost_nanos IS NULL AND currency IS NOT NULL))::int AS unpriced,
                  coalesce(input_tokens, 0) AS input_tokens, coalesce(output_tokens, 0) AS output_tokens,
                  coalesce(cost_nanos, 0) AS cost_nanos, 0 AS records, 0 AS net
           FROM relay_usage WHERE site_id = $1
           UNION ALL
           SELECT occurred_at, coalesce(external_user_id, ''), currency, 0, 0, 0, 0, 0, 1, amount_minor
           FROM ingest_payments WHERE site_id = $1 AND status = 'succeeded'
           UNION ALL
           SELECT r.occurred_at, coalesce(p.external_user_id, ''), r.currency, 0, 0, 0, 0, 0, 1, -r.amount_minor
           FROM ingest_refunds r LEFT JOIN ingest_payments p ON p.site_id = r.site_id AND p.payment_id = r.payment_id
           WHERE r.site_id = $1 AND r.status = 'succeeded'
         ) x CROSS JOIN (VALUES ('d', 'day'), ('h', 'hour')) AS g(grain, unit)
         GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
    [siteId],
  );

/** A site's relay_site_hours, or the same figures worked out again from its relay_usage rows. */
const siteHours = (table: 'relay_site_hours' | 'relay_usage') =>
  app.db.any(
    table === 'relay_site_hours'
      ? 'SELECT hour, currency, calls, unpriced_calls, cost_nanos, last_at FROM relay_site_hours WHERE site_id = $1 ORDER BY 1, 2'
      : `SELECT date_trunc('hour', at, 'UTC') AS hour, currency, count(*)::bigint AS calls,
                count(*) FILTER (WHERE unpriced OR (cost_nanos IS NULL AND currency IS NOT NULL))::bigint AS unpriced_calls,
                coalesce(sum(cost_nanos), 0)::bigint AS cost_nanos, max(at) AS last_at
         FROM relay_usage WHERE site_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
    [site.siteId],
  );

test('the customer and site rollups equal the calls, payments and refunds, and a retried batch of calls adds nothing', async () => {
  const rollup = await economicsRows(site.siteId, 'rollup');
  const perSite = await siteHours('relay_site_hours');
  assert.deepEqual(perSite, await siteHours('relay_usage'));
  assert.equal(
    rollup.filter((r) => r.grain === 'h').reduce((n, r) => n + r.calls, 0),
    7,
  );
  assert.deepEqual(rollup, await economicsRows(site.siteId, 'raw'));
  // The usage worker retrying a batch it already stored.
  const stored = await app.db.any('SELECT * FROM relay_usage WHERE site_id = $1', [site.siteId]);
  await insertUsage(
    app.db,
    stored.map((r) => UsageRowSchema.parse({ ...r, at: r.at.toISOString() })),
  );
  assert.deepEqual(await economicsRows(site.siteId, 'rollup'), rollup);
  assert.deepEqual(await siteHours('relay_site_hours'), perSite);
});

test('unit economics over whole hours (the rollup) and ragged ends (raw calls) agrees with any window', async () => {
  const e = await get('unit-economics');
  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();
  for (const [from, to] of [
    [hour - 3_600_000, hour + 7_200_000],
    [hour - 1_800_000, hour + 5_400_000],
  ]) {
    const w = await get('unit-economics', { from: iso(from!), to: iso(to!) });
    assert.deepEqual(w.data, e.data, `${iso(from!)}..${iso(to!)}`);
    // coverage.relay alike: whole hours from relay_site_hours, the cut ones from the calls.
    const { calls, unpriced_calls, spend_nanos, last_call_at } = w.coverage.relay;
    assert.deepEqual(
      { calls, unpriced_calls, spend_nanos, last_call_at },
      {
        calls: e.coverage.relay.calls,
        unpriced_calls: e.coverage.relay.unpriced_calls,
        spend_nanos: e.coverage.relay.spend_nanos,
        last_call_at: e.coverage.relay.last_call_at,
      },
    );
  }
});

test('unit economics takes the query rules of every view, and needs finance:read', async () => {
  for (const [query, path] of [
    [{ limit: '0' }, 'query.limit'],
    [{ limit: '101' }, 'query.limit'],
    [{ customer: 'alice' }, 'query.customer'],
    [{ tz: 'Mars/Olympus' }, 'query.tz'],
  ] as const) {
    const r = await view(app, site.siteId, 'unit-economics', readKey, { ...window, ...query });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.code, 'validation_failed');
    assert.ok(
      r.body.errors.some((x: any) => x.path === path),
      r.text,
    );
  }
  const r = await view(app, site.siteId, 'unit-economics', analyticsOnly, window);
  assert.equal(r.status, 403, r.text);
  assert.equal(r.body.code, 'insufficient_scope');
});

test('the OpenAPI document describes unit economics with its query', async () => {
  const doc = (await call(app.url, 'GET', '/api/v1/openapi.json')).body;
  const op = doc.paths['/api/v1/sites/{siteId}/analytics/unit-economics'].get;
  assert.deepEqual(op.parameters.map((p: { name: string }) => p.name).sort(), ['from', 'limit', 'siteId', 'to', 'tz']);
});

test('unit economics stays exact through retried batches, refunds, revised payments, windows off the hour and two zones', async () => {
  const other = await ingestSite(app);
  const key = await createCredential(app.url, other.account, other.siteId, 'read', ['analytics:read', 'finance:read']);
  const { id: keyId } = await app.db.one<{ id: string }>('SELECT id FROM relay_keys LIMIT 1');
  const HOUR = 3_600_000;
  const base = Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR - 10 * 24 * HOUR;
  const iso = (ms: number) => new Date(ms).toISOString();
  // Around a UTC hour, UTC midnight, and Kathmandu's (18:15 UTC) and Shanghai's (16:00 UTC) midnights.
  const at = [
    15.5 * HOUR,
    16 * HOUR + 60_000,
    18.2 * HOUR,
    18.3 * HOUR,
    23.9 * HOUR,
    24.1 * HOUR,
    42.25 * HOUR,
    50 * HOUR,
  ].map((t) => base + t);
  let n = 0;
  const metered = (t: number, customer: string | null, nanos: number | null, currency: string | null = 'USD') =>
    UsageRowSchema.parse({
      id: randomUUID(),
      at: iso(t),
      request_id: `econ-${n++}`,
      key_id: keyId,
      model: 'm',
      channel_id: null,
      endpoint: 'chat',
      stream: false,
      status: 200,
      input_tokens: 10 + n,
      output_tokens: 5,
      cached_tokens: 0,
      reasoning_tokens: 0,
      ttfb_ms: null,
      duration_ms: 1,
      cost_nanos: nanos,
      currency,
      unpriced: nanos === null,
      site_id: other.siteId,
      customer,
    });
  const calls = [
    metered(at[0]!, 'ann', 3e9),
    metered(at[2]!, 'ann', 3e9),
    metered(at[4]!, 'ben', 5e10),
    metered(at[5]!, 'ben', 2e9, 'CNY'),
    metered(at[3]!, 'dan', 1e9),
    metered(at[6]!, 'dan', null, null),
    metered(at[7]!, null, 4e9),
  ];
  await insertUsage(app.db, calls);
  await insertUsage(app.db, calls);

  const pay = (id: string, user: string | null, amount: number, t: number, extra: object = {}) => ({
    payment_id: id,
    order_id: `o-${id}`,
    ...(user ? { external_user_id: user } : {}),
    amount_minor: amount,
    currency: 'USD',
    status: 'succeeded',
    occurred_at: iso(t),
    ...extra,
  });
  const refund = (id: string, payment: string, amount: number, t: number, extra: object = {}) => ({
    refund_id: id,
    payment_id: payment,
    amount_minor: amount,
    currency: 'USD',
    status: 'succeeded',
    occurred_at: iso(t),
    ...extra,
  });
  const first = [
    pay('q1', 'ann', 5000, at[1]!),
    pay('q2', 'ben', 300, at[3]!),
    pay('q3', null, 100, at[4]!),
    pay('q4', 'ann', 200, at[5]!, { currency: 'CNY', status: 'failed' }),
  ];
  await ingest(app, other, 'payments', 'econ-p1', first);
  // A refund stored before its payment counts for nobody until the payment names its customer.
  await ingest(app, other, 'refunds', 'econ-r1', [refund('f1', 'q5', 50, at[6]!), refund('f2', 'q1', 1000, at[2]!)]);
  await ingest(app, other, 'payments', 'econ-p2', [pay('q5', 'ben', 400, at[0]!)]);
  await ingest(app, other, 'payments', 'econ-p1', first);
  // Revisions: a payment that failed after all, one whose customer changes (its refund moves
  // along), one whose amount changes; a refund whose amount changes.
  await ingest(app, other, 'payments', 'econ-p3', [
    pay('q2', 'ben', 300, at[3]!, { status: 'failed', revision: 2 }),
    pay('q5', 'cat', 400, at[0]!, { revision: 2 }),
    pay('q1', 'ann', 6000, at[1]!, { revision: 2 }),
  ]);
  await ingest(app, other, 'refunds', 'econ-r2', [refund('f2', 'q1', 1500, at[2]!, { revision: 2 })]);

  assert.deepEqual(await economicsRows(other.siteId, 'rollup'), await economicsRows(other.siteId, 'raw'));

  // Every record, to work out each window's answer by hand.
  const records = await app.db.any<{
    at: Date;
    customer: string | null;
    currency: string | null;
    nanos: string | null;
    net: number | null;
  }>(
    `SELECT at, customer, currency, cost_nanos AS nanos, NULL::int AS net FROM relay_usage WHERE site_id = $1
     UNION ALL
     SELECT occurred_at, external_user_id, currency, NULL, amount_minor FROM ingest_payments WHERE site_id = $1 AND status = 'succeeded'
     UNION ALL
     SELECT r.occurred_at, p.external_user_id, r.currency, NULL, -r.amount_minor
     FROM ingest_refunds r LEFT JOIN ingest_payments p USING (site_id, payment_id) WHERE r.site_id = $1 AND r.status = 'succeeded'`,
    [other.siteId],
  );
  const expected = (from: number, to: number) => {
    const who = new Map<
      string | null,
      { revenue: Record<string, number>; spend_nanos: Record<string, number>; calls: number; unpriced: number }
    >();
    for (const r of records.filter((x) => x.at.getTime() >= from && x.at.getTime() < to)) {
      const c =
        who.get(r.customer) ??
        who.set(r.customer, { revenue: {}, spend_nanos: {}, calls: 0, unpriced: 0 }).get(r.customer)!;
      if (r.net !== null) c.revenue[r.currency!] = (c.revenue[r.currency!] ?? 0) + r.net;
      else if (r.nanos === null) [c.calls, c.unpriced] = [c.calls + 1, c.unpriced + 1];
      else [c.calls, c.spend_nanos[r.currency!]] = [c.calls + 1, (c.spend_nanos[r.currency!] ?? 0) + Number(r.nanos)];
    }
    return who;
  };
  const zones = ['Asia/Kathmandu', 'Asia/Shanghai'];
  const windows = [
    ...zones.map((tz) => ({
      from: iso(base + 15 * HOUR + 10 * 60_000),
      to: iso(base + 48 * HOUR + 20 * 60_000 + 500),
      tz,
    })),
    ...zones.map((tz) => ({ from: iso(base).slice(0, 10), to: iso(base + 2 * 24 * HOUR).slice(0, 10), tz })),
    ...zones.map((tz) => ({ from: iso(base).slice(0, 10), to: iso(base + 3 * 24 * HOUR).slice(0, 10), tz })),
    { from: iso(base + 18 * HOUR + 15 * 60_000), to: iso(base + 18.25 * HOUR + 60_000), tz: 'UTC' },
  ];
  let checked = 0;
  for (const w of windows) {
    const r = await view(app, other.siteId, 'unit-economics', key, { ...w, limit: '100' });
    assert.equal(r.status, 200, r.text);
    const e = r.body.data;
    const want = expected(Date.parse(r.body.coverage.window.from), Date.parse(r.body.coverage.window.to));
    const named = [...want.keys()].filter((c) => c !== null);
    const label = JSON.stringify(w);
    assert.equal(e.customers.count, named.length, label);
    const listed = new Map<string, any>();
    for (const l of [...e.top_spenders, ...e.lowest_margins])
      for (const c of l.customers) listed.set(c.external_user_id, c);
    for (const c of [...listed.values(), ...(e.unattributed ? [e.unattributed] : [])]) {
      const x = want.get(c.external_user_id)!;
      assert.deepEqual(
        { revenue: c.revenue, spend_nanos: c.spend_nanos, calls: c.calls, unpriced_calls: c.unpriced_calls },
        { revenue: x.revenue, spend_nanos: x.spend_nanos, calls: x.calls, unpriced_calls: x.unpriced },
        `${label} ${c.external_user_id}`,
      );
      checked++;
    }
    // Every customer with a margin is on a lowest-margin list, and their margins are worked out again.
    const margins = named
      .map((c) => want.get(c)!)
      .filter((x) => x.unpriced === 0 && new Set([...Object.keys(x.revenue), ...Object.keys(x.spend_nanos)]).size <= 1)
      .map(
        (x) =>
          Object.values(x.revenue).reduce((s, v) => s + v, 0) -
          Object.values(x.spend_nanos).reduce((s, v) => s + Math.ceil(v / 1e7), 0),
      );
    assert.equal(e.customers.with_margin, margins.length, label);
    assert.equal(e.customers.negative_margin, margins.filter((m) => m < 0).length, label);
    assert.equal(e.unattributed === null, !want.has(null), label);
  }
  assert.ok(checked > 10, 'the windows hold customers to compare');
});
