import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createCredential } from '../helpers/fixtures.ts';
import { ingestSite, type IngestSite } from '../ingest/fixtures.ts';
import { ingest, view, waitForRollups } from './fixtures.ts';

/**
 * A small site whose records straddle local midnights: Asia/Shanghai (UTC+8), UTC and
 * America/New_York — whose 2026-11-01 lasts 25 hours, daylight saving time ending at 06:00Z —
 * put many of them on different days. Every expected figure below is worked out by hand from
 * this list; the comments give each record's local day as SH / UTC / NY.
 */
const EVENTS = [
  // SH 11-01 23:30 / UTC 11-01 / NY 11-01. Channel from campaign c1 (search).
  {
    event_id: 'e1',
    event_type: 'visit',
    occurred_at: '2026-11-01T15:30:00Z',
    external_user_id: 'u1',
    session_id: 's1',
    campaign_id: 'c1',
  },
  // Same session: not a new visit. SH 11-02.
  {
    event_id: 'e2',
    event_type: 'visit',
    occurred_at: '2026-11-01T16:10:00Z',
    external_user_id: 'u1',
    session_id: 's1',
    campaign_id: 'c1',
  },
  {
    event_id: 'e3',
    event_type: 'registration_completed',
    occurred_at: '2026-11-01T16:20:00Z',
    external_user_id: 'u1',
    campaign_id: 'c1',
  },
  // SH 11-02 / UTC 11-02 / NY 11-01 22:00 EST.
  {
    event_id: 'e4',
    event_type: 'visit',
    occurred_at: '2026-11-02T03:00:00Z',
    external_user_id: 'u2',
    session_id: 's2',
    properties: { channel: 'social' },
  },
  {
    event_id: 'e5',
    event_type: 'registration_completed',
    occurred_at: '2026-11-02T03:05:00Z',
    external_user_id: 'u2',
    properties: { channel: 'social' },
  },
  // NY 11-01 23:00 EST: a zone cut at a fixed -04:00 would put it on 11-02.
  { event_id: 'e6', event_type: 'activation_completed', occurred_at: '2026-11-02T04:00:00Z', external_user_id: 'u2' },
  // NY 11-02 00:00.
  { event_id: 'e7', event_type: 'order_paid', occurred_at: '2026-11-02T05:00:00Z', external_user_id: 'u2' },
  // SH 11-03 01:00 / UTC 11-02 / NY 11-02.
  {
    event_id: 'e8',
    event_type: 'visit',
    occurred_at: '2026-11-02T17:00:00Z',
    external_user_id: 'u3',
    session_id: 's3',
  },
  { event_id: 'e9', event_type: 'usage', occurred_at: '2026-11-02T18:00:00Z', external_user_id: 'u1' },
  // Anonymous visit without a session: a visit of its own, nobody's visitor.
  { event_id: 'e10', event_type: 'visit', occurred_at: '2026-11-03T10:00:00Z' },
  // SH 11-09 / UTC 11-09 / NY 11-08 20:00.
  {
    event_id: 'e11',
    event_type: 'visit',
    occurred_at: '2026-11-09T01:00:00Z',
    external_user_id: 'u1',
    session_id: 's4',
  },
  { event_id: 'e12', event_type: 'usage', occurred_at: '2026-11-09T02:00:00Z', external_user_id: 'u1' },
  // SH 11-10 / UTC 11-10 / NY 11-09.
  { event_id: 'e13', event_type: 'workflow_completed', occurred_at: '2026-11-10T02:00:00Z', external_user_id: 'u2' },
];

async function loadDataset(app: TestApp, site: IngestSite): Promise<void> {
  await ingest(app, site, 'campaigns', 'cmp', [
    {
      campaign_id: 'c1',
      name: 'Launch',
      channel: 'search',
      status: 'active',
      starts_at: '2026-10-01T00:00:00Z',
      occurred_at: '2026-10-01T00:00:00Z',
    },
  ]);
  await ingest(app, site, 'customers', 'cus', [
    { customer_id: 'cus1', status: 'active', created_at: '2026-11-01T15:00:00Z', occurred_at: '2026-11-01T15:00:00Z' },
  ]);
  await ingest(app, site, 'events', 'ev', EVENTS);
  await ingest(app, site, 'orders', 'ord', [
    {
      order_id: 'o1',
      external_user_id: 'u2',
      amount_minor: 2999,
      currency: 'USD',
      status: 'paid',
      occurred_at: '2026-11-02T05:00:00Z',
    },
    // SH 11-02 / UTC 11-01 / NY 11-01.
    {
      order_id: 'o2',
      external_user_id: 'u1',
      amount_minor: 9900,
      currency: 'CNY',
      status: 'paid',
      occurred_at: '2026-11-01T16:30:00Z',
    },
    {
      order_id: 'o3',
      external_user_id: 'u3',
      amount_minor: 500,
      currency: 'USD',
      status: 'pending',
      occurred_at: '2026-11-03T00:00:00Z',
    },
  ]);
  await ingest(app, site, 'payments', 'pay', [
    {
      payment_id: 'p1',
      order_id: 'o1',
      external_user_id: 'u2',
      amount_minor: 2999,
      currency: 'USD',
      status: 'succeeded',
      occurred_at: '2026-11-02T05:01:00Z',
    },
    {
      payment_id: 'p2',
      order_id: 'o2',
      external_user_id: 'u1',
      amount_minor: 9900,
      currency: 'CNY',
      status: 'succeeded',
      occurred_at: '2026-11-01T16:31:00Z',
    },
    {
      payment_id: 'p3',
      order_id: 'o3',
      external_user_id: 'u3',
      amount_minor: 500,
      currency: 'USD',
      status: 'failed',
      occurred_at: '2026-11-03T00:01:00Z',
    },
  ]);
  await ingest(app, site, 'refunds', 'ref', [
    {
      refund_id: 'r1',
      payment_id: 'p1',
      amount_minor: 1000,
      currency: 'USD',
      status: 'succeeded',
      occurred_at: '2026-11-09T03:00:00Z',
    },
  ]);
  await ingest(app, site, 'subscriptions', 'sub', [
    {
      subscription_id: 'sub1',
      external_user_id: 'u2',
      plan_id: 'pro',
      status: 'active',
      period_start: '2026-11-02T05:00:00Z',
      period_end: '2026-12-02T05:00:00Z',
      amount_minor: 2999,
      currency: 'USD',
      occurred_at: '2026-11-02T05:00:00Z',
    },
    // Yearly: 118800 / 12 = 9900 a month.
    {
      subscription_id: 'sub2',
      external_user_id: 'u1',
      plan_id: 'team',
      status: 'active',
      period_start: '2026-11-01T16:30:00Z',
      period_end: '2027-11-01T16:30:00Z',
      amount_minor: 118800,
      currency: 'CNY',
      occurred_at: '2026-11-01T16:30:00Z',
    },
    {
      subscription_id: 'sub3',
      external_user_id: 'u3',
      plan_id: 'basic',
      status: 'cancelled',
      period_start: '2026-10-03T00:00:00Z',
      period_end: '2026-11-03T00:00:00Z',
      amount_minor: 1000,
      currency: 'USD',
      occurred_at: '2026-11-04T00:00:00Z',
    },
  ]);
  await ingest(app, site, 'costs', 'cost', [
    {
      cost_id: 'k1',
      amount_minor: 12000,
      currency: 'USD',
      category: 'infrastructure',
      period_start: '2026-11-01T00:00:00Z',
      period_end: '2026-12-01T00:00:00Z',
      occurred_at: '2026-11-01T20:00:00Z',
    },
    {
      cost_id: 'k2',
      amount_minor: 3000,
      currency: 'USD',
      category: 'usage',
      period_start: '2026-11-03T00:00:00Z',
      period_end: '2026-11-04T00:00:00Z',
      occurred_at: '2026-11-03T01:00:00Z',
    },
  ]);
  await ingest(app, site, 'expenses', 'exp', [
    {
      expense_id: 'x1',
      campaign_id: 'c1',
      amount_minor: 50000,
      currency: 'CNY',
      cost_scope: 'advertising',
      period_start: '2026-11-01T00:00:00Z',
      period_end: '2026-11-30T00:00:00Z',
      occurred_at: '2026-11-01T10:00:00Z',
    },
    {
      expense_id: 'x2',
      campaign_id: 'c1',
      amount_minor: 2000,
      currency: 'USD',
      cost_scope: 'content',
      period_start: '2026-11-05T00:00:00Z',
      period_end: '2026-11-06T00:00:00Z',
      occurred_at: '2026-11-05T00:00:00Z',
    },
  ]);
  const obs = (id: string, status: string, at: string) => ({
    observation_id: id,
    target_ref: 'home',
    target_type: 'website',
    status,
    latency_ms: 100,
    occurred_at: at,
  });
  await ingest(app, site, 'observations', 'obs', [
    obs('ob1', 'healthy', '2026-11-02T00:00:00Z'),
    obs('ob2', 'down', '2026-11-02T00:05:00Z'),
    obs('ob3', 'degraded', '2026-11-03T00:00:00Z'),
    obs('ob4', 'unknown', '2026-11-03T00:05:00Z'),
    obs('ob5', 'healthy', '2026-11-04T00:00:00Z'),
  ]);
  await ingest(app, site, 'summaries', 'sum', [
    // Exactly Shanghai's 11-06, which has no raw visit: used in Shanghai only.
    {
      summary_id: 'sm1',
      metric: 'visits',
      period_start: '2026-11-05T16:00:00Z',
      period_end: '2026-11-06T16:00:00Z',
      value: 40,
      unit: 'count',
      definition_version: 'v1',
      dimensions: {},
      occurred_at: '2026-11-07T00:00:00Z',
    },
    // Exactly UTC's 11-04, which has no raw payment: used in UTC only.
    {
      summary_id: 'sm2',
      metric: 'receipts',
      period_start: '2026-11-04T00:00:00Z',
      period_end: '2026-11-05T00:00:00Z',
      value: 777,
      unit: 'minor_currency',
      currency: 'USD',
      definition_version: 'v1',
      dimensions: {},
      occurred_at: '2026-11-05T12:00:00Z',
    },
  ]);
}

const WINDOW = { from: '2026-11-01', to: '2026-11-15' };
const ZONES = { sh: 'Asia/Shanghai', utc: 'UTC', ny: 'America/New_York' } as const;

describe('analytics views', () => {
  let app: TestApp;
  let site: IngestSite;
  let key: string;
  let analyticsOnly: string;

  before(async () => {
    app = await startTestApp({ workers: ['ingest', 'rollup'] });
    site = await ingestSite(app);
    key = await createCredential(app.url, site.account, site.siteId, 'read', ['analytics:read', 'finance:read']);
    analyticsOnly = await createCredential(app.url, site.account, site.siteId, 'read', ['analytics:read']);
    await loadDataset(app, site);
    await waitForRollups(app, site.siteId);
  });
  after(() => app.close());

  const get = async (name: string, tz: string, query: Record<string, string> = {}) => {
    const r = await view(app, site.siteId, name, key, { ...WINDOW, tz, ...query });
    assert.equal(r.status, 200, r.text);
    return r.body;
  };

  test('overview: totals per zone, summaries only where raw records are missing that day', async () => {
    const common = {
      visitors: 3,
      registrations: 2,
      activations: 1,
      active_users: 2,
      paid_orders: 2,
      refunds: { USD: 1000 },
      costs: { USD: 15000 },
      mrr: { CNY: 9900, USD: 2999 },
    };
    const uptime = { ratio: 0.75, healthy: 2, degraded: 1, down: 1, unknown: 1 };
    const sh = await get('overview', ZONES.sh);
    // 5 session starts, plus 40 from the summary of Shanghai's 11-06.
    assert.deepEqual(sh.data, {
      ...common,
      visits: 45,
      receipts: { CNY: 9900, USD: 2999 },
      net_revenue: { CNY: 9900, USD: 1999 },
      uptime,
    });
    assert.deepEqual(sh.currencies, ['CNY', 'USD']);
    assert.equal(sh.coverage.metrics.visits.source, 'raw+summaries');
    // Payment records (any status) on SH 11-02 and 11-03.
    assert.deepEqual(sh.coverage.metrics.receipts, { source: 'raw', raw_days: 2, summary_days: 0 });
    assert.deepEqual(sh.coverage.summaries, { used: 1, unused: 1 });

    const utc = await get('overview', ZONES.utc);
    assert.deepEqual(utc.data, {
      ...common,
      visits: 5,
      receipts: { CNY: 9900, USD: 3776 },
      net_revenue: { CNY: 9900, USD: 2776 },
      uptime,
    });
    assert.deepEqual(utc.coverage.metrics.receipts, { source: 'raw+summaries', raw_days: 3, summary_days: 1 });
    assert.deepEqual(utc.coverage.metrics.visits, { source: 'raw', raw_days: 4, summary_days: 0 });

    const ny = await get('overview', ZONES.ny);
    assert.deepEqual(ny.data, {
      ...common,
      visits: 5,
      receipts: { CNY: 9900, USD: 2999 },
      net_revenue: { CNY: 9900, USD: 1999 },
      uptime,
    });
    assert.deepEqual(ny.coverage.summaries, { used: 0, unused: 2 });
  });

  test('coverage: window, records per family, days with data, freshness', async () => {
    const sh = await get('overview', ZONES.sh);
    assert.deepEqual(sh.coverage.window, {
      from: '2026-10-31T16:00:00.000Z',
      to: '2026-11-14T16:00:00.000Z',
      tz: 'Asia/Shanghai',
      days: 14,
    });
    assert.deepEqual(sh.coverage.families.events, {
      records: 13,
      first_occurred_at: '2026-11-01T15:30:00.000Z',
      last_occurred_at: '2026-11-10T02:00:00.000Z',
      days_with_data: 5,
      days_in_window: 14,
    });
    // The campaign record itself occurred before the window.
    assert.deepEqual(sh.coverage.families.campaigns, {
      records: 0,
      first_occurred_at: null,
      last_occurred_at: null,
      days_with_data: 0,
      days_in_window: 14,
    });
    // SH: 11-02 (ob1, ob2), 11-03 (ob3, ob4), 11-04 (ob5).
    assert.equal(sh.coverage.families.observations.days_with_data, 3);
    const ny = await get('overview', ZONES.ny);
    // New York's 11-01 begins 04:00Z (EDT) and its 11-15 05:00Z (EST).
    assert.deepEqual(ny.coverage.window, {
      from: '2026-11-01T04:00:00.000Z',
      to: '2026-11-15T05:00:00.000Z',
      tz: 'America/New_York',
      days: 14,
    });
    // NY: 11-01 (ob1, ob2), 11-02 (ob3, ob4), 11-03 (ob5).
    assert.equal(ny.coverage.families.observations.days_with_data, 3);
    assert.equal(sh.freshness.pending_hours, 0);
    assert.equal(sh.freshness.lag_seconds, 0);
    assert.ok(Date.parse(sh.freshness.as_of) <= Date.now());
    assert.ok(sh.freshness.last_received_at);
  });

  test('timeseries: days cut in each zone, zero-filled, unobserved days marked', async () => {
    const row = (b: any) => [
      b.label,
      b.observed,
      b.visits,
      b.registrations,
      b.activations,
      b.paid_orders,
      b.receipts,
      b.refunds,
      b.costs,
    ];
    const zero = (label: string, observed: boolean) => [label, observed, 0, 0, 0, 0, {}, {}, {}];
    const sh = await get('timeseries', ZONES.sh);
    assert.equal(sh.data.interval, 'day');
    assert.deepEqual(sh.data.buckets.map(row), [
      ['2026-11-01', true, 1, 0, 0, 0, {}, {}, {}],
      ['2026-11-02', true, 1, 2, 1, 2, { CNY: 9900, USD: 2999 }, {}, { USD: 12000 }],
      ['2026-11-03', true, 2, 0, 0, 0, {}, {}, { USD: 3000 }],
      zero('2026-11-04', true),
      zero('2026-11-05', true),
      ['2026-11-06', true, 40, 0, 0, 0, {}, {}, {}],
      zero('2026-11-07', true),
      zero('2026-11-08', false),
      ['2026-11-09', true, 1, 0, 0, 0, {}, { USD: 1000 }, {}],
      zero('2026-11-10', true),
      zero('2026-11-11', false),
      zero('2026-11-12', false),
      zero('2026-11-13', false),
      zero('2026-11-14', false),
    ]);
    assert.deepEqual(
      [sh.data.buckets[0].start, sh.data.buckets[0].end],
      ['2026-10-31T16:00:00.000Z', '2026-11-01T16:00:00.000Z'],
    );
    assert.deepEqual(sh.data.buckets[1].net_revenue, { CNY: 9900, USD: 2999 });

    const utc = await get('timeseries', ZONES.utc);
    assert.deepEqual(utc.data.buckets.map(row), [
      ['2026-11-01', true, 1, 1, 0, 1, { CNY: 9900 }, {}, { USD: 12000 }],
      ['2026-11-02', true, 2, 1, 1, 1, { USD: 2999 }, {}, {}],
      ['2026-11-03', true, 1, 0, 0, 0, {}, {}, { USD: 3000 }],
      ['2026-11-04', true, 0, 0, 0, 0, { USD: 777 }, {}, {}],
      zero('2026-11-05', true),
      zero('2026-11-06', false),
      zero('2026-11-07', true),
      zero('2026-11-08', false),
      ['2026-11-09', true, 1, 0, 0, 0, {}, { USD: 1000 }, {}],
      zero('2026-11-10', true),
      zero('2026-11-11', false),
      zero('2026-11-12', false),
      zero('2026-11-13', false),
      zero('2026-11-14', false),
    ]);

    const ny = await get('timeseries', ZONES.ny);
    assert.deepEqual(ny.data.buckets.map(row), [
      ['2026-11-01', true, 2, 2, 1, 1, { CNY: 9900 }, {}, { USD: 12000 }],
      ['2026-11-02', true, 1, 0, 0, 1, { USD: 2999 }, {}, { USD: 3000 }],
      ['2026-11-03', true, 1, 0, 0, 0, {}, {}, {}],
      zero('2026-11-04', true),
      zero('2026-11-05', true),
      zero('2026-11-06', true),
      zero('2026-11-07', false),
      ['2026-11-08', true, 1, 0, 0, 0, {}, { USD: 1000 }, {}],
      zero('2026-11-09', true),
      zero('2026-11-10', false),
      zero('2026-11-11', false),
      zero('2026-11-12', false),
      zero('2026-11-13', false),
      zero('2026-11-14', false),
    ]);
    // The 25-hour day.
    assert.deepEqual(
      [ny.data.buckets[0].start, ny.data.buckets[0].end],
      ['2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z'],
    );
  });

  test('timeseries: weeks start on Monday in the zone, months are calendar months, both clipped to the window', async () => {
    const sh = await get('timeseries', ZONES.sh, { interval: 'week' });
    assert.deepEqual(
      sh.data.buckets.map((b: any) => [b.label, b.start, b.end, b.visits, b.receipts]),
      [
        ['2026-11-01', '2026-10-31T16:00:00.000Z', '2026-11-01T16:00:00.000Z', 1, {}],
        ['2026-11-02', '2026-11-01T16:00:00.000Z', '2026-11-08T16:00:00.000Z', 43, { CNY: 9900, USD: 2999 }],
        ['2026-11-09', '2026-11-08T16:00:00.000Z', '2026-11-14T16:00:00.000Z', 1, {}],
      ],
    );
    const month = await get('timeseries', ZONES.sh, { interval: 'month', from: '2026-10-25' });
    assert.deepEqual(
      month.data.buckets.map((b: any) => [b.label, b.observed, b.visits]),
      [
        ['2026-10-25', false, 0],
        ['2026-11-01', true, 45],
      ],
    );
  });

  test("acquisition: events by their own source, money by the user's first touch, spend by campaign", async () => {
    const none = {
      visits: 0,
      registrations: 0,
      activations: 0,
      paid_orders: 0,
      revenue: {},
      spend: {},
      cac: {},
      roas: {},
    };
    const search = {
      visits: 1,
      registrations: 1,
      activations: 0,
      paid_orders: 1,
      revenue: { CNY: 9900 },
      spend: { CNY: 50000, USD: 2000 },
      cac: { CNY: 50000, USD: 2000 },
      roas: { CNY: 0.198, USD: 0 },
    };
    for (const tz of Object.values(ZONES)) {
      const r = await get('acquisition', tz);
      assert.deepEqual(
        r.data,
        {
          channels: [
            { channel: 'search', ...search },
            { channel: 'social', ...none, visits: 1, registrations: 1, paid_orders: 1, revenue: { USD: 2999 } },
            { channel: null, ...none, visits: 3, activations: 1 },
          ],
          campaigns: [{ campaign_id: 'c1', name: 'Launch', channel: 'search', ...search }],
          // No source here names an AI assistant (test/geo/assistants.test.ts has some).
          assistants: [],
        },
        tz,
      );
      assert.deepEqual(r.currencies, ['CNY', 'USD']);
    }
  });

  test('finance: money per currency, never summed across currencies', async () => {
    const expected = (usdReceipts: number) => ({
      receipts: { CNY: 9900, USD: usdReceipts },
      refunds: { USD: 1000 },
      net_revenue: { CNY: 9900, USD: usdReceipts - 1000 },
      costs: { total: { USD: 15000 }, by_category: { infrastructure: { USD: 12000 }, usage: { USD: 3000 } } },
      expenses: { total: { CNY: 50000, USD: 2000 }, by_scope: { advertising: { CNY: 50000 }, content: { USD: 2000 } } },
      margin: { CNY: 9900 - 50000, USD: usdReceipts - 1000 - 15000 - 2000 },
      mrr: { CNY: 9900, USD: 2999 },
      arr: { CNY: 118800, USD: 35988 },
      subscriptions: { active: 2, new: 2, churned: 1 },
    });
    assert.deepEqual((await get('finance', ZONES.sh)).data, expected(2999));
    assert.deepEqual((await get('finance', ZONES.utc)).data, expected(3776));
  });

  test('funnel: distinct users who did every step so far, within the window', async () => {
    const steps = (...users: number[]) =>
      ['visit', 'registration_completed', 'activation_completed', 'order_paid'].map((step, i) => ({
        step,
        users: users[i],
        conversion_from_previous: i === 0 ? null : Math.round((users[i]! / users[i - 1]!) * 10_000) / 10_000,
      }));
    assert.deepEqual((await get('funnel', ZONES.sh)).data, { steps: steps(3, 2, 1, 1), overall_conversion: 0.3333 });
    // One local day: Shanghai's 11-02 sees u1 and u2 visit and register; UTC's sees u2 and u3.
    assert.deepEqual((await get('funnel', ZONES.sh, { from: '2026-11-02', to: '2026-11-03' })).data, {
      steps: steps(2, 2, 1, 1),
      overall_conversion: 0.5,
    });
    assert.deepEqual((await get('funnel', ZONES.utc, { from: '2026-11-02', to: '2026-11-03' })).data, {
      steps: steps(2, 1, 1, 1),
      overall_conversion: 0.5,
    });
  });

  test('retention: weekly cohorts by first registration, share active in each later week', async () => {
    const cohorts = (r: any) =>
      r.data.cohorts.map((c: any) => [c.label, c.users, c.weeks.map((w: any) => [w.offset, w.active_users, w.share])]);
    // Shanghai: both register on Monday 11-02; both are active the week after.
    assert.deepEqual(cohorts(await get('retention', ZONES.sh)), [
      [
        '2026-11-01',
        0,
        [
          [1, 0, null],
          [2, 0, null],
        ],
      ],
      ['2026-11-02', 2, [[1, 2, 1]]],
      ['2026-11-09', 0, []],
    ]);
    // UTC: u1 registers on Sunday 11-01, u2 on 11-02.
    assert.deepEqual(cohorts(await get('retention', ZONES.utc)), [
      [
        '2026-11-01',
        1,
        [
          [1, 1, 1],
          [2, 1, 1],
        ],
      ],
      ['2026-11-02', 1, [[1, 1, 1]]],
      ['2026-11-09', 0, []],
    ]);
    // New York: both register on Sunday 11-01; u1 is active in week 1, u2 in week 2.
    assert.deepEqual(cohorts(await get('retention', ZONES.ny)), [
      [
        '2026-11-01',
        2,
        [
          [1, 1, 0.5],
          [2, 1, 0.5],
        ],
      ],
      ['2026-11-02', 0, [[1, 0, null]]],
      ['2026-11-09', 0, []],
    ]);
  });

  test('funnel and retention add up users of every id chunk (read in parts on several connections)', async () => {
    const big = await ingestSite(app);
    const bigKey = await createCredential(app.url, big.account, big.siteId, 'read', ['analytics:read']);
    // As on a site with 130,000 earlier users: a in chunk 0, b in chunk 1, d in chunk 2, and the
    // new user c after d. Chunks 0 and 2 are read by one part, chunk 1 by the other.
    await app.db.none(
      `INSERT INTO analytics_user_ids (site_id, external_user_id, id) VALUES ($1, 'a', 3), ($1, 'b', 65541), ($1, 'd', 131100)`,
      [big.siteId],
    );
    const at = (day: string, hour: number) => `2026-11-${day}T${String(hour).padStart(2, '0')}:00:00Z`;
    const steps: Record<string, string[]> = {
      a: ['visit', 'registration_completed', 'activation_completed', 'order_paid'],
      b: ['visit', 'registration_completed', 'activation_completed'],
      c: ['visit', 'registration_completed'],
      d: ['visit', 'registration_completed', 'activation_completed', 'order_paid'],
    };
    const events = Object.entries(steps).flatMap(([user, types], u) => [
      ...types.map((type, i) => ({
        event_id: `${user}${i}`,
        event_type: type,
        occurred_at: at('03', 1 + u * 4 + i),
        external_user_id: user,
        ...(type === 'visit' ? { session_id: `s${user}` } : {}),
      })),
      // Back the week after: all but c.
      ...(user === 'c'
        ? []
        : [{ event_id: `${user}-usage`, event_type: 'usage', occurred_at: at('10', 1 + u), external_user_id: user }]),
    ]);
    await ingest(app, big, 'events', 'ev', events);
    await waitForRollups(app, big.siteId);
    const get = async (name: string) => {
      const r = await view(app, big.siteId, name, bigKey, { ...WINDOW, tz: ZONES.utc });
      assert.equal(r.status, 200, r.text);
      return r.body.data;
    };
    assert.deepEqual(
      (await get('funnel')).steps.map((s: any) => s.users),
      [4, 4, 3, 2],
    );
    const cohort = (await get('retention')).cohorts.find((c: any) => c.label === '2026-11-02');
    assert.deepEqual([cohort.users, cohort.weeks[0]], [4, { offset: 1, active_users: 3, share: 0.75 }]);
    const ids = await app.db.one<{ c: number }>(
      `SELECT id AS c FROM analytics_user_ids WHERE site_id = $1 AND external_user_id = 'c'`,
      [big.siteId],
    );
    assert.equal(Math.floor(ids.c / 65536), 2);
  });

  test('a zone with a 45-minute offset is cut on its own quarter hours', async () => {
    // Asia/Kathmandu's 11-02 is [11-01 18:15Z, 11-02 18:15Z): e4 and e8 start visits there,
    // e2 (16:10Z) and e3 (16:20Z) fall on its 11-01.
    const r = await get('overview', 'Asia/Kathmandu', { from: '2026-11-02', to: '2026-11-03' });
    assert.equal(r.coverage.window.from, '2026-11-01T18:15:00.000Z');
    assert.deepEqual([r.data.visits, r.data.visitors, r.data.registrations], [2, 2, 1]);
  });

  test('a day a summary stands in for counts as a summary day, not a raw one, whatever the metric', async () => {
    // Registrations: the presence of raw records and the summary's figure share one name.
    const other = await ingestSite(app);
    const otherKey = await createCredential(app.url, other.account, other.siteId, 'read', ['analytics:read']);
    await ingest(app, other, 'events', 'ev', [
      {
        event_id: 'r1',
        event_type: 'registration_completed',
        occurred_at: '2026-11-02T03:05:00Z',
        external_user_id: 'u1',
      },
    ]);
    await ingest(app, other, 'summaries', 'sum', [
      // UTC 11-05 has no raw registration: used.
      {
        summary_id: 's1',
        metric: 'registrations',
        period_start: '2026-11-05T00:00:00Z',
        period_end: '2026-11-06T00:00:00Z',
        value: 7,
        unit: 'count',
        definition_version: 'v1',
        dimensions: {},
        occurred_at: '2026-11-06T00:00:00Z',
      },
      // UTC 11-02 has one: not used.
      {
        summary_id: 's2',
        metric: 'registrations',
        period_start: '2026-11-02T00:00:00Z',
        period_end: '2026-11-03T00:00:00Z',
        value: 5,
        unit: 'count',
        definition_version: 'v1',
        dimensions: {},
        occurred_at: '2026-11-06T00:00:00Z',
      },
    ]);
    await waitForRollups(app, other.siteId);
    const r = await view(app, other.siteId, 'overview', otherKey, { ...WINDOW, tz: ZONES.utc });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.registrations, 8);
    assert.deepEqual(r.body.coverage.metrics.registrations, { source: 'raw+summaries', raw_days: 1, summary_days: 1 });
    assert.deepEqual(r.body.coverage.summaries, { used: 1, unused: 1 });
  });

  test('a revision that moves a record refolds both its old and its new hour', async () => {
    await ingest(app, site, 'events', 'ev-move', [{ ...EVENTS[9], revision: 2, occurred_at: '2026-11-12T10:00:00Z' }]);
    await waitForRollups(app, site.siteId);
    const sh = await get('timeseries', ZONES.sh);
    assert.deepEqual(
      sh.data.buckets
        .filter((b: any) => ['2026-11-03', '2026-11-12'].includes(b.label))
        .map((b: any) => [b.label, b.visits]),
      [
        ['2026-11-03', 1],
        ['2026-11-12', 1],
      ],
    );
    // Days with events: Shanghai's 11-03 keeps e8 and e9 and 11-12 is new (5 → 6); UTC's 11-03
    // had only e10 and loses it as 11-12 gains it (5 → 5).
    assert.equal(sh.coverage.families.events.days_with_data, 6);
    assert.equal((await get('overview', ZONES.utc)).coverage.families.events.days_with_data, 5);
  });

  test("a renewal keeps a subscription's first start; a correction to an earlier start moves it out of the window", async () => {
    const sub1 = {
      subscription_id: 'sub1',
      external_user_id: 'u2',
      plan_id: 'pro',
      status: 'active',
      amount_minor: 2999,
      currency: 'USD',
    };
    const newIn = async () => (await get('finance', ZONES.sh)).data.subscriptions.new;
    assert.equal(await newIn(), 2);
    await ingest(app, site, 'subscriptions', 'sub-renew', [
      {
        ...sub1,
        revision: 2,
        period_start: '2026-12-02T05:00:00Z',
        period_end: '2027-01-02T05:00:00Z',
        occurred_at: '2026-11-20T00:00:00Z',
      },
    ]);
    await waitForRollups(app, site.siteId);
    assert.equal(await newIn(), 2);
    // It really began in October, before the window: its start hour on 11-02 is refolded without it.
    await ingest(app, site, 'subscriptions', 'sub-fix', [
      {
        ...sub1,
        revision: 3,
        period_start: '2026-10-02T05:00:00Z',
        period_end: '2026-11-02T05:00:00Z',
        occurred_at: '2026-11-20T01:00:00Z',
      },
    ]);
    await waitForRollups(app, site.siteId);
    assert.equal(await newIn(), 1);
  });

  test('finance needs finance:read; the other views analytics:read', async () => {
    const denied = await view(app, site.siteId, 'finance', analyticsOnly, WINDOW);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'insufficient_scope');
    assert.equal((await view(app, site.siteId, 'overview', analyticsOnly, WINDOW)).status, 200);
    assert.equal((await view(app, site.siteId, 'overview', site.readKey, WINDOW)).status, 403);
  });

  test('bad queries are 400 problems naming the parameter', async () => {
    const bad = async (name: string, query: Record<string, string>, path: string) => {
      const r = await view(app, site.siteId, name, key, query);
      assert.equal(r.status, 400, r.text);
      assert.match(r.headers.get('content-type')!, /application\/problem\+json/);
      assert.ok(
        r.body.errors.some((e: any) => e.path === path),
        r.text,
      );
    };
    await bad('overview', { tz: 'Mars/Olympus_Mons' }, 'query.tz');
    await bad('overview', { from: '2026-11-10', to: '2026-11-01' }, 'query.to');
    await bad('overview', { from: '2026-11-10', to: '2026-11-10' }, 'query.to');
    await bad('overview', { from: '2025-01-01', to: '2026-11-01' }, 'query.to');
    await bad('overview', { from: '2026-02-30' }, 'query.from');
    await bad('overview', { interval: 'week' }, 'query.interval');
    await bad('timeseries', { interval: 'hour' }, 'query.interval');
    await bad('funnel', { foo: '1' }, 'query.foo');
  });
});
