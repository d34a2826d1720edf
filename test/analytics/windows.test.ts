import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createCredential } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import { ingestSite, type IngestSite } from '../ingest/fixtures.ts';
import { isoInstant } from '../../src/analytics/calendar.ts';
import { readWindow } from '../../src/analytics/read-window.ts';
import { resolveWindow } from '../../src/analytics/window.ts';
import { ingest, view, waitForRollups } from './fixtures.ts';

/**
 * Windows between any two instants (issue 14): the parts of a window no whole rollup bucket
 * fits are read from the raw records. Records sit a second (and, at `from`, a microsecond) on
 * either side of each end; every figure of every view is compared with a recomputation from
 * the records below, by the definitions of the README, for windows of many shapes.
 */
const T = '2026-11-23T14:13:27Z';
const IN_T = '2026-11-23T14:13:26Z';
const OUT_T = '2026-11-23T14:13:28Z';
const F = '2026-11-20T09:47:31.000250Z';
const IN_F = '2026-11-20T09:47:31.000251Z';
const OUT_F = '2026-11-20T09:47:31.000249Z';
/** In rollup buckets of every window below. */
const MID = '2026-11-21T12:00:00Z';
const MID2 = '2026-11-22T03:30:00Z';
/** The last whole quarter hour before T, and just before it. */
const Q = '2026-11-23T14:00:00Z';
const BEFORE_Q = '2026-11-23T13:59:59.999999Z';

type Rec = Record<string, any>;

const CAMPAIGNS: Rec[] = [
  {
    campaign_id: 'c1',
    name: 'Launch',
    channel: 'search',
    status: 'active',
    starts_at: '2026-10-01T00:00:00Z',
    occurred_at: '2026-10-01T00:00:00Z',
  },
];
let n = 0;
const ev = (event_type: string, occurred_at: string, extra: Rec = {}): Rec => ({
  event_id: `e${++n}`,
  event_type,
  occurred_at,
  ...extra,
});
const EVENTS: Rec[] = [
  // a: visits in the middle, registers just inside T, activates just outside, pays in the raw tail.
  ev('visit', MID, { external_user_id: 'a', session_id: 'sa', properties: { channel: 'social' } }),
  ev('registration_completed', IN_T, { external_user_id: 'a' }),
  ev('activation_completed', OUT_T, { external_user_id: 'a' }),
  ev('order_paid', Q, { external_user_id: 'a' }),
  // b: visits just inside F, registers in the middle, is active just inside T, pays outside.
  ev('visit', IN_F, { external_user_id: 'b', session_id: 'sb', campaign_id: 'c1' }),
  ev('registration_completed', MID2, { external_user_id: 'b' }),
  ev('usage', IN_T, { external_user_id: 'b' }),
  ev('order_paid', OUT_T, { external_user_id: 'b' }),
  // c: visits only outside, is active in the last whole bucket.
  ev('visit', OUT_F, { external_user_id: 'c', session_id: 'sc1' }),
  ev('visit', OUT_T, { external_user_id: 'c', session_id: 'sc2' }),
  ev('workflow_completed', BEFORE_Q, { external_user_id: 'c' }),
  // d: everything in the raw tail, by campaign c1.
  ev('visit', '2026-11-23T14:05:00Z', { external_user_id: 'd', session_id: 'sd', campaign_id: 'c1' }),
  ev('registration_completed', '2026-11-23T14:06:00Z', { external_user_id: 'd', campaign_id: 'c1' }),
  ev('activation_completed', '2026-11-23T14:07:00.5Z', { external_user_id: 'd' }),
  ev('order_paid', '2026-11-23T14:08:00Z', { external_user_id: 'd' }),
  // e: a session begun just before F: its visit just inside F starts no visit.
  ev('visit', OUT_F, { external_user_id: 'e', session_id: 'se' }),
  ev('visit', IN_F, { external_user_id: 'e', session_id: 'se' }),
  // Anonymous visits without a session, on each side of T, some sent by an AI assistant.
  ev('visit', IN_T),
  ev('visit', OUT_T),
  ev('visit', IN_T, { properties: { channel: 'chatgpt' } }),
  ev('visit', OUT_T, { properties: { channel: 'chatgpt' } }),
  // f registered before the window: in no cohort, however active.
  ev('registration_completed', '2026-11-01T00:00:00Z', { external_user_id: 'f' }),
  ev('usage', IN_F, { external_user_id: 'f' }),
  // g registers a microsecond before F (in the raw part of "before the window"), comes back later.
  ev('registration_completed', OUT_F, { external_user_id: 'g' }),
  ev('usage', MID, { external_user_id: 'g' }),
  ev('registration_completed', MID2, { external_user_id: 'g' }),
];
const ORDERS: Rec[] = [
  { order_id: 'o1', external_user_id: 'a', amount_minor: 1000, currency: 'USD', status: 'paid', occurred_at: Q },
  { order_id: 'o2', external_user_id: 'b', amount_minor: 2000, currency: 'USD', status: 'paid', occurred_at: OUT_T },
  { order_id: 'o3', external_user_id: 'b', amount_minor: 400, currency: 'CNY', status: 'paid', occurred_at: IN_F },
  { order_id: 'o4', external_user_id: 'd', amount_minor: 800, currency: 'CNY', status: 'paid', occurred_at: OUT_F },
];
const PAYMENTS: Rec[] = [
  {
    payment_id: 'p1',
    order_id: 'o1',
    external_user_id: 'a',
    amount_minor: 1000,
    currency: 'USD',
    status: 'succeeded',
    occurred_at: IN_T,
  },
  {
    payment_id: 'p2',
    order_id: 'o2',
    external_user_id: 'b',
    amount_minor: 2000,
    currency: 'USD',
    status: 'succeeded',
    occurred_at: OUT_T,
  },
  {
    payment_id: 'p3',
    order_id: 'o3',
    external_user_id: 'b',
    amount_minor: 400,
    currency: 'CNY',
    status: 'succeeded',
    occurred_at: IN_F,
  },
  {
    payment_id: 'p4',
    order_id: 'o4',
    external_user_id: 'd',
    amount_minor: 800,
    currency: 'CNY',
    status: 'succeeded',
    occurred_at: OUT_F,
  },
  {
    payment_id: 'p5',
    order_id: 'o1',
    external_user_id: 'a',
    amount_minor: 5000,
    currency: 'USD',
    status: 'succeeded',
    occurred_at: MID,
  },
  {
    payment_id: 'p6',
    order_id: 'o1',
    external_user_id: 'd',
    amount_minor: 700,
    currency: 'USD',
    status: 'succeeded',
    occurred_at: '2026-11-23T14:09:00Z',
  },
];
const REFUNDS: Rec[] = [
  { refund_id: 'r1', payment_id: 'p1', amount_minor: 300, currency: 'USD', status: 'succeeded', occurred_at: IN_T },
  { refund_id: 'r2', payment_id: 'p2', amount_minor: 200, currency: 'USD', status: 'succeeded', occurred_at: OUT_T },
];
const COSTS: Rec[] = [
  {
    cost_id: 'k1',
    amount_minor: 50,
    currency: 'USD',
    category: 'infrastructure',
    period_start: '2026-11-01T00:00:00Z',
    period_end: '2026-12-01T00:00:00Z',
    occurred_at: IN_T,
  },
  {
    cost_id: 'k2',
    amount_minor: 60,
    currency: 'USD',
    category: 'infrastructure',
    period_start: '2026-11-01T00:00:00Z',
    period_end: '2026-12-01T00:00:00Z',
    occurred_at: OUT_T,
  },
  {
    cost_id: 'k3',
    amount_minor: 70,
    currency: 'USD',
    category: 'usage',
    period_start: '2026-11-01T00:00:00Z',
    period_end: '2026-12-01T00:00:00Z',
    occurred_at: IN_F,
  },
];
const EXPENSES: Rec[] = [
  {
    expense_id: 'x1',
    campaign_id: 'c1',
    amount_minor: 900,
    currency: 'CNY',
    cost_scope: 'advertising',
    period_start: '2026-11-01T00:00:00Z',
    period_end: '2026-11-30T00:00:00Z',
    occurred_at: IN_T,
  },
  {
    expense_id: 'x2',
    campaign_id: 'c1',
    amount_minor: 100,
    currency: 'CNY',
    cost_scope: 'advertising',
    period_start: '2026-11-01T00:00:00Z',
    period_end: '2026-11-30T00:00:00Z',
    occurred_at: OUT_T,
  },
];
const obs = (id: string, status: string, at: string): Rec => ({
  observation_id: id,
  target_ref: 'home',
  target_type: 'website',
  status,
  latency_ms: 100,
  occurred_at: at,
});
const OBSERVATIONS: Rec[] = [
  obs('ob1', 'healthy', IN_T),
  obs('ob2', 'down', OUT_T),
  obs('ob3', 'degraded', IN_F),
  obs('ob4', 'unknown', OUT_F),
  obs('ob5', 'healthy', MID),
];
const sub = (id: string, status: string, start: string, end: string, at: string, amount: number): Rec => ({
  subscription_id: id,
  external_user_id: 'a',
  plan_id: 'pro',
  status,
  period_start: start,
  period_end: end,
  amount_minor: amount,
  currency: 'USD',
  occurred_at: at,
});
const SUBSCRIPTIONS: Rec[] = [
  sub('s1', 'active', IN_T, '2026-12-23T14:13:26Z', IN_T, 1000),
  sub('s2', 'active', OUT_T, '2026-12-23T14:13:28Z', OUT_T, 2000),
  sub('s3', 'cancelled', '2026-10-01T00:00:00Z', '2026-11-01T00:00:00Z', IN_T, 300),
  sub('s4', 'cancelled', '2026-10-01T00:00:00Z', '2026-11-01T00:00:00Z', OUT_T, 400),
  sub('s5', 'active', IN_F, '2026-12-20T09:47:31.000251Z', IN_F, 50),
];
const CUSTOMERS: Rec[] = [
  { customer_id: 'cu1', status: 'active', created_at: IN_T, occurred_at: IN_T },
  { customer_id: 'cu2', status: 'active', created_at: OUT_T, occurred_at: OUT_T },
];

/** Epoch microseconds of a UTC timestamp (at most six fraction digits here). */
const us = (t: string): bigint => {
  const utc = `${new Date(t).toISOString().slice(0, 19)}Z`;
  const frac = /\.(\d+)(?:Z|[+-])/.exec(t)?.[1] ?? '';
  return BigInt(Date.parse(utc)) * 1000n + BigInt(frac.padEnd(6, '0').slice(0, 6));
};

interface Span {
  from: bigint;
  to: bigint;
}
const inSpan = (s: Span, at: string) => us(at) >= s.from && us(at) < s.to;
const money = (recs: Rec[], pick: (r: Rec) => string = (r) => r.currency) => {
  const out: Record<string, number> = {};
  for (const r of recs) out[pick(r)] = (out[pick(r)] ?? 0) + r.amount_minor;
  return out;
};
const sortKeys = (m: Record<string, number>) =>
  Object.fromEntries(
    Object.keys(m)
      .sort()
      .map((k) => [k, m[k]!]),
  );
const minus = (a: Record<string, number>, ...bs: Record<string, number>[]) => {
  const out = { ...a };
  for (const b of bs) for (const [c, v] of Object.entries(b)) out[c] = (out[c] ?? 0) - v;
  return sortKeys(out);
};
const distinct = (recs: Rec[]) => new Set(recs.map((r) => r.external_user_id).filter(Boolean));
const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 10_000) / 10_000 : null);

function groupBy(recs: Rec[], key: (r: Rec) => string): Map<string, Rec[]> {
  const out = new Map<string, Rec[]>();
  for (const r of recs) out.set(key(r), [...(out.get(key(r)) ?? []), r]);
  return out;
}

/** The earliest visit of each session over all time (ties by event_id). */
const sessionStarts = new Set(
  [
    ...groupBy(
      EVENTS.filter((e) => e.event_type === 'visit' && e.session_id),
      (e) => e.session_id,
    ).values(),
  ].map(
    (vs) =>
      vs.sort((x, y) =>
        us(x.occurred_at) < us(y.occurred_at)
          ? -1
          : us(x.occurred_at) > us(y.occurred_at)
            ? 1
            : x.event_id < y.event_id
              ? -1
              : 1,
      )[0]!.event_id,
  ),
);
const isVisit = (e: Rec) => e.event_type === 'visit' && (!e.session_id || sessionStarts.has(e.event_id));

/** The figures of the additive metrics over a span, recomputed from the records. */
function additive(s: Span) {
  const events = EVENTS.filter((e) => inSpan(s, e.occurred_at));
  const receipts = sortKeys(money(PAYMENTS.filter((p) => p.status === 'succeeded' && inSpan(s, p.occurred_at))));
  const refunds = sortKeys(money(REFUNDS.filter((r) => r.status === 'succeeded' && inSpan(s, r.occurred_at))));
  const costs = sortKeys(money(COSTS.filter((c) => inSpan(s, c.occurred_at))));
  return {
    visits: events.filter(isVisit).length,
    registrations: events.filter((e) => e.event_type === 'registration_completed').length,
    activations: events.filter((e) => e.event_type === 'activation_completed').length,
    paid_orders: ORDERS.filter((o) => o.status === 'paid' && inSpan(s, o.occurred_at)).length,
    receipts,
    refunds,
    net_revenue: minus(receipts, refunds),
    costs,
  };
}

function overview(s: Span, now: bigint) {
  const events = EVENTS.filter((e) => inSpan(s, e.occurred_at));
  const { visits, registrations, activations, paid_orders, receipts, refunds, net_revenue, costs } = additive(s);
  const status = (st: string) => OBSERVATIONS.filter((o) => o.status === st && inSpan(s, o.occurred_at)).length;
  const [healthy, degraded, down, unknown] = ['healthy', 'degraded', 'down', 'unknown'].map(status) as [
    number,
    number,
    number,
    number,
  ];
  return {
    visits,
    visitors: distinct(events.filter((e) => e.event_type === 'visit')).size,
    registrations,
    activations,
    active_users: distinct(events.filter((e) => ['usage', 'workflow_completed'].includes(e.event_type))).size,
    paid_orders,
    receipts,
    refunds,
    net_revenue,
    costs,
    mrr: mrr(s, now).mrr,
    uptime: { ratio: ratio(healthy + degraded, healthy + degraded + down), healthy, degraded, down, unknown },
  };
}

/** Active subscriptions whose period holds the window's last microsecond (all monthly here). */
function mrr(s: Span, now: bigint) {
  const at = (s.to < now ? s.to : now) - 1n;
  const active = SUBSCRIPTIONS.filter(
    (x) => x.status === 'active' && us(x.period_start) <= at && at < us(x.period_end),
  );
  return { active, mrr: sortKeys(money(active)) };
}

function finance(s: Span, now: bigint) {
  const a = additive(s);
  const expenses = EXPENSES.filter((x) => inSpan(s, x.occurred_at));
  const costs = COSTS.filter((c) => inSpan(s, c.occurred_at));
  const m = mrr(s, now);
  return {
    receipts: a.receipts,
    refunds: a.refunds,
    net_revenue: a.net_revenue,
    costs: {
      total: a.costs,
      by_category: Object.fromEntries(
        [...groupBy(costs, (c) => c.category)].sort().map(([k, v]) => [k, sortKeys(money(v))]),
      ),
    },
    expenses: {
      total: sortKeys(money(expenses)),
      by_scope: Object.fromEntries(
        [...groupBy(expenses, (x) => x.cost_scope)].sort().map(([k, v]) => [k, sortKeys(money(v))]),
      ),
    },
    margin: minus(a.net_revenue, a.costs, money(expenses)),
    mrr: m.mrr,
    arr: Object.fromEntries(Object.entries(m.mrr).map(([c, v]) => [c, v * 12])),
    subscriptions: {
      active: m.active.length,
      // Every subscription here keeps its first period_start.
      new: SUBSCRIPTIONS.filter((x) => inSpan(s, x.period_start)).length,
      churned: SUBSCRIPTIONS.filter((x) => ['cancelled', 'expired'].includes(x.status) && inSpan(s, x.occurred_at))
        .length,
    },
  };
}

const FUNNEL = ['visit', 'registration_completed', 'activation_completed', 'order_paid'];
function funnel(s: Span) {
  const did = FUNNEL.map((type) => distinct(EVENTS.filter((e) => e.event_type === type && inSpan(s, e.occurred_at))));
  const users = FUNNEL.map((_, k) => [...did[0]!].filter((u) => did.slice(0, k + 1).every((d) => d.has(u))).length);
  return {
    steps: FUNNEL.map((step, i) => ({
      step,
      users: users[i],
      conversion_from_previous: i === 0 ? null : ratio(users[i]!, users[i - 1]!),
    })),
    overall_conversion: ratio(users[3]!, users[0]!),
  };
}

/** The channel of an event: its own, else its campaign's. */
const channelOf = (r: Rec) =>
  r.properties?.channel ?? CAMPAIGNS.find((c) => c.campaign_id === r.campaign_id)?.channel ?? null;
function firstTouch(user: string) {
  const touches = EVENTS.filter((e) => e.external_user_id === user && (e.properties?.channel || e.campaign_id)).sort(
    (x, y) => (us(x.occurred_at) < us(y.occurred_at) ? -1 : 1),
  );
  return touches[0] ? channelOf(touches[0]) : null;
}
function acquisition(s: Span) {
  const rows = new Map<string | null, Rec>();
  const row = (ch: string | null) =>
    rows.get(ch) ??
    rows.set(ch, { visits: 0, registrations: 0, activations: 0, paid_orders: 0, revenue: {}, spend: {} }).get(ch)!;
  for (const e of EVENTS.filter((x) => inSpan(s, x.occurred_at))) {
    if (isVisit(e)) row(channelOf(e)).visits++;
    if (e.event_type === 'registration_completed') row(channelOf(e)).registrations++;
    if (e.event_type === 'activation_completed') row(channelOf(e)).activations++;
  }
  for (const o of ORDERS.filter((x) => x.status === 'paid' && inSpan(s, x.occurred_at)))
    row(firstTouch(o.external_user_id)).paid_orders++;
  for (const p of PAYMENTS.filter((x) => x.status === 'succeeded' && inSpan(s, x.occurred_at))) {
    const r = row(firstTouch(p.external_user_id));
    r.revenue[p.currency] = (r.revenue[p.currency] ?? 0) + p.amount_minor;
  }
  for (const x of EXPENSES.filter((y) => inSpan(s, y.occurred_at))) {
    const r = row(channelOf(x));
    r.spend[x.currency] = (r.spend[x.currency] ?? 0) + x.amount_minor;
  }
  return Object.fromEntries(
    [...rows].map(([ch, r]) => [String(ch), { ...r, revenue: sortKeys(r.revenue), spend: sortKeys(r.spend) }]),
  );
}

/** Cohorts by first registration ever within each week [start, end) the view names. */
function retention(weeks: Span[]) {
  const firstReg = new Map<string, bigint>();
  for (const e of EVENTS.filter((x) => x.event_type === 'registration_completed')) {
    const t = us(e.occurred_at);
    if (!firstReg.has(e.external_user_id) || t < firstReg.get(e.external_user_id)!) firstReg.set(e.external_user_id, t);
  }
  const active = (w: Span) =>
    distinct(EVENTS.filter((e) => ['usage', 'workflow_completed'].includes(e.event_type) && inSpan(w, e.occurred_at)));
  return weeks.map((w, i) => {
    const cohort = [...firstReg].filter(([, t]) => t >= w.from && t < w.to).map(([u]) => u);
    return [cohort.length, weeks.slice(i + 1).map((later) => cohort.filter((u) => active(later).has(u)).length)];
  });
}

function families(s: Span) {
  const of = (recs: Rec[]) => {
    const ins = recs
      .filter((r) => inSpan(s, r.occurred_at))
      .map((r) => us(r.occurred_at))
      .sort((a, b) => (a < b ? -1 : 1));
    return { records: ins.length, first: ins[0] ?? null, last: ins.at(-1) ?? null };
  };
  return {
    events: of(EVENTS),
    payments: of(PAYMENTS),
    customers: of(CUSTOMERS),
    observations: of(OBSERVATIONS),
    subscriptions: of(SUBSCRIPTIONS),
  };
}

/** A zone as Radar names it back: its canonical spelling here (Asia/Kathmandu may be Asia/Katmandu). */
const canonical = (tz: string) => new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;

/** Milliseconds of a coverage timestamp (PostgreSQL's microseconds cut to JS's milliseconds). */
const msOf = (t: bigint | null) => (t === null ? null : new Date(Number(t / 1000n)).toISOString());

describe('windows between any two instants', () => {
  let app: TestApp;
  let site: IngestSite;
  let key: string;

  before(async () => {
    app = await startTestApp({ workers: ['ingest', 'rollup'] });
    site = await ingestSite(app);
    key = await createCredential(app.url, site.account, site.siteId, 'read', [
      'analytics:read',
      'finance:read',
      'geo:read',
      'geo:evidence:read',
    ]);
    await ingest(app, site, 'campaigns', 'cmp', CAMPAIGNS);
    await ingest(app, site, 'customers', 'cus', CUSTOMERS);
    await ingest(app, site, 'events', 'ev', EVENTS);
    await ingest(app, site, 'orders', 'ord', ORDERS);
    await ingest(app, site, 'payments', 'pay', PAYMENTS);
    await ingest(app, site, 'refunds', 'ref', REFUNDS);
    await ingest(app, site, 'subscriptions', 'sub', SUBSCRIPTIONS);
    await ingest(app, site, 'costs', 'cost', COSTS);
    await ingest(app, site, 'expenses', 'exp', EXPENSES);
    await ingest(app, site, 'observations', 'obs', OBSERVATIONS);
    await waitForRollups(app, site.siteId);
  });
  after(() => app.close());

  const get = async (name: string, query: Record<string, string>) => {
    const r = await view(app, site.siteId, name, key, query);
    assert.equal(r.status, 200, `${name} ${JSON.stringify(query)}: ${r.text}`);
    return r.body;
  };

  /** Every view over the window, each figure against the recomputation. */
  async function checkWindow(query: { from: string; to: string; tz: string }, exact: { from: string; to: string }) {
    const s = { from: us(query.from), to: us(query.to) };
    const label = JSON.stringify(query);
    const now = BigInt(Date.now()) * 1000n;

    const o = await get('overview', query);
    assert.deepEqual(o.data, overview(s, now), `overview ${label}`);
    assert.deepEqual(
      [o.coverage.window.from, o.coverage.window.to, o.coverage.window.tz],
      [exact.from, exact.to, canonical(query.tz)],
      label,
    );
    for (const [family, f] of Object.entries(families(s))) {
      const c = o.coverage.families[family];
      assert.deepEqual(
        [c.records, c.first_occurred_at, c.last_occurred_at],
        [f.records, msOf(f.first), msOf(f.last)],
        `${family} ${label}`,
      );
    }

    assert.deepEqual((await get('finance', query)).data, finance(s, now), `finance ${label}`);
    assert.deepEqual((await get('funnel', query)).data, funnel(s), `funnel ${label}`);

    const acq = (await get('acquisition', query)).data;
    const want = acquisition(s);
    assert.deepEqual(
      Object.fromEntries(
        acq.channels.map((c: Rec) => [
          String(c.channel),
          {
            visits: c.visits,
            registrations: c.registrations,
            activations: c.activations,
            paid_orders: c.paid_orders,
            revenue: c.revenue,
            spend: c.spend,
          },
        ]),
      ),
      want,
      `acquisition ${label}`,
    );

    const ts = (await get('timeseries', query)).data.buckets;
    assert.equal(ts[0].start, exact.from, label);
    assert.equal(ts.at(-1).end, exact.to, label);
    for (const b of ts) {
      const { visits, registrations, activations, paid_orders, receipts, refunds, net_revenue, costs } = b;
      assert.deepEqual(
        { visits, registrations, activations, paid_orders, receipts, refunds, net_revenue, costs },
        additive({ from: us(b.start), to: us(b.end) }),
        `timeseries ${b.label} ${label}`,
      );
    }

    const cohorts = (await get('retention', query)).data.cohorts;
    assert.equal(cohorts[0].start, exact.from, label);
    assert.equal(cohorts.at(-1).end, exact.to, label);
    assert.deepEqual(
      cohorts.map((c: Rec) => [c.users, c.weeks.map((w: Rec) => w.active_users)]),
      retention(cohorts.map((c: Rec) => ({ from: us(c.start), to: us(c.end) }))),
      `retention ${label}`,
    );
  }

  test('every view answers a window ending at any second exactly, each figure as recomputed from the records', async () => {
    // Raw tail 14:00:00–14:13:27, raw head 09:47:31.000250–09:45 (+15 min); days cut in UTC,
    // in a zone whose days are whole hours, and in one whose days start at :15 or :45.
    for (const tz of ['UTC', 'Asia/Shanghai', 'Asia/Kathmandu']) {
      await checkWindow(
        { from: F, to: T, tz },
        { from: '2026-11-20T09:47:31.000250Z', to: '2026-11-23T14:13:27.000Z' },
      );
    }
    // The same instants written in other zones.
    await checkWindow(
      { from: '2026-11-20T17:47:31.00025+08:00', to: '2026-11-23T09:13:27-05:00', tz: 'UTC' },
      { from: '2026-11-20T09:47:31.000250Z', to: '2026-11-23T14:13:27.000Z' },
    );
  });

  test('records a second either side of `to`, and a microsecond either side of `from`, fall on their side', async () => {
    const o = async (from: string, to: string) => (await get('overview', { from, to, tz: 'UTC' })).data;
    // Only what happened at 14:13:26.
    const second = await o(IN_T, T);
    assert.deepEqual(
      [
        second.visits,
        second.registrations,
        second.active_users,
        second.receipts,
        second.refunds,
        second.costs,
        second.uptime.healthy,
      ],
      [2, 1, 1, { USD: 1000 }, { USD: 300 }, { USD: 50 }, 1],
    );
    const before = await o(IN_T, '2026-11-23T14:13:26.000001Z');
    assert.deepEqual([before.visits, before.registrations], [2, 1]);
    const none = await o('2026-11-23T14:13:26.000001Z', OUT_T);
    assert.deepEqual([none.visits, none.registrations, none.receipts, none.uptime.healthy], [0, 0, {}, 0]);
    const after = await o('2026-11-23T14:13:26.000001Z', '2026-11-23T14:13:28.000001Z');
    assert.deepEqual(
      [after.visits, after.activations, after.paid_orders, after.receipts, after.uptime.down],
      [3, 1, 1, { USD: 2000 }, 1],
    );
    const head = await o(F, '2026-11-20T09:47:32Z');
    assert.deepEqual(
      [
        head.visits,
        head.visitors,
        head.paid_orders,
        head.receipts,
        head.costs,
        head.uptime.degraded,
        head.uptime.unknown,
      ],
      [1, 2, 1, { CNY: 400 }, { USD: 70 }, 1, 0],
    );
    const missed = await o('2026-11-20T09:47:31.000252Z', '2026-11-20T09:47:32Z');
    assert.deepEqual([missed.visits, missed.visitors, missed.paid_orders], [0, 0, 0]);
    // Windows with no whole bucket at all: inside one quarter hour, across one, a microsecond.
    for (const [from, to, exactFrom, exactTo] of [
      ['2026-11-23T14:05:00Z', T, '2026-11-23T14:05:00.000Z', '2026-11-23T14:13:27.000Z'],
      ['2026-11-23T13:59:59Z', T, '2026-11-23T13:59:59.000Z', '2026-11-23T14:13:27.000Z'],
      [MID, '2026-11-21T12:00:00.000001Z', '2026-11-21T12:00:00.000Z', '2026-11-21T12:00:00.000001Z'],
    ] as const) {
      await checkWindow({ from, to, tz: 'UTC' }, { from: exactFrom, to: exactTo });
    }
  });

  test('by default the window is the last 30 local days up to now, for analytics and GEO alike', async () => {
    const started = Date.now();
    const a = (await get('overview', { tz: 'Asia/Kathmandu' })).coverage.window;
    const g = await call(app.url, 'GET', `/api/v1/sites/${site.siteId}/geo/overview?tz=Asia/Kathmandu`, {
      bearer: key,
    });
    const ended = Date.now();
    assert.equal(g.status, 200, g.text);
    // The start of Kathmandu's day 29 days before today (UTC+05:45).
    const today = new Date(started + (5 * 60 + 45) * 60_000).toISOString().slice(0, 10);
    const first = new Date(Date.parse(`${today}T00:00:00Z`) - 29 * 86_400_000 - (5 * 60 + 45) * 60_000).toISOString();
    for (const w of [a, g.body.window]) {
      assert.equal(w.from, first);
      assert.ok(Date.parse(w.to) >= started && Date.parse(w.to) <= ended, w.to);
      assert.equal(w.tz, canonical('Asia/Kathmandu'));
      assert.equal(w.days, 30);
    }
  });

  test('GEO reads take any instant too, and name the exact window used', async () => {
    const q = `from=${encodeURIComponent(F)}&to=${encodeURIComponent('2026-11-23T22:13:27+08:00')}`;
    for (const read of ['overview', 'trends', 'traffic']) {
      const r = await call(app.url, 'GET', `/api/v1/sites/${site.siteId}/geo/${read}?${q}&tz=UTC`, { bearer: key });
      assert.equal(r.status, 200, `${read}: ${r.text}`);
      assert.deepEqual(
        r.body.window,
        { from: '2026-11-20T09:47:31.000250Z', to: '2026-11-23T14:13:27.000Z', tz: 'UTC', days: 4 },
        read,
      );
      // The assistant's visit a second before `to` counts, the one a second after does not.
      if (read === 'traffic') assert.equal(r.body.data.visits, 1, r.text);
    }
    for (const read of ['runs', 'answers', 'citations', 'reports']) {
      const r = await call(app.url, 'GET', `/api/v1/sites/${site.siteId}/geo/${read}?${q}`, { bearer: key });
      assert.equal(r.status, 200, `${read}: ${r.text}`);
    }
    const bad = await call(
      app.url,
      'GET',
      `/api/v1/sites/${site.siteId}/geo/overview?from=${encodeURIComponent(T)}&to=${encodeURIComponent(IN_T)}`,
      { bearer: key },
    );
    assert.equal(bad.status, 400, bad.text);
    assert.ok(
      bad.body.errors.some((e: Rec) => e.path === 'query.to'),
      bad.text,
    );
  });
});

describe('ragged ends the rollup has not reached yet', () => {
  let app: TestApp;
  let site: IngestSite;
  let key: string;

  before(async () => {
    // No rollup worker: the users below have no dense id (but `known`, as an earlier rollup
    // would have given one, in chunk 1) and no bucket holds them.
    app = await startTestApp({ workers: ['ingest'] });
    site = await ingestSite(app);
    key = await createCredential(app.url, site.account, site.siteId, 'read', ['analytics:read']);
    await app.db.none(`INSERT INTO analytics_user_ids (site_id, external_user_id, id) VALUES ($1, 'known', 70000)`, [
      site.siteId,
    ]);
    const steps: Record<string, string[]> = {
      x: ['visit', 'registration_completed', 'activation_completed', 'order_paid'],
      y: ['visit', 'registration_completed'],
      known: ['visit', 'registration_completed', 'activation_completed'],
    };
    await ingest(
      app,
      site,
      'events',
      'ev',
      Object.entries(steps).flatMap(([user, types], u) =>
        types.map((type, i) => ({
          event_id: `${user}${i}`,
          event_type: type,
          occurred_at: `2026-11-23T14:${String(1 + u * 4 + i).padStart(2, '0')}:00Z`,
          external_user_id: user,
          ...(type === 'visit' ? { session_id: `s${user}` } : {}),
        })),
      ),
    );
  });
  after(() => app.close());

  test('users without an id yet count once each, in distinct users, funnels and cohorts', async () => {
    for (const from of ['2026-11-23T14:00:00.5Z', '2026-11-23T12:59:59Z']) {
      const q = { from, to: T, tz: 'UTC' };
      const get = async (name: string) => {
        const r = await view(app, site.siteId, name, key, q);
        assert.equal(r.status, 200, r.text);
        return r.body.data;
      };
      const o = await get('overview');
      assert.deepEqual([o.visits, o.visitors, o.registrations, o.activations], [3, 3, 3, 2], from);
      assert.deepEqual(
        (await get('funnel')).steps.map((s: Rec) => s.users),
        [3, 3, 2, 1],
        from,
      );
      assert.deepEqual(
        (await get('retention')).cohorts.map((c: Rec) => c.users),
        [3],
        from,
      );
    }
    const { n } = await app.db.one<{ n: number }>(
      'SELECT count(*)::int AS n FROM analytics_user_ids WHERE site_id = $1',
      [site.siteId],
    );
    assert.equal(n, 1);
  });

  test("a window's end moves out to its quarter hour (read from the rollups) only when nothing lies between", async () => {
    // Events of this site lie at 14:01, 14:02, … 14:11 (UTC, 2026-11-23), none at 14:00.
    const ends = async (from: string, to: string) => {
      const w = resolveWindow({ from, to, tz: 'UTC' }, 'UTC', Date.now());
      const r = await readWindow(app.db, site.siteId, w);
      return [isoInstant(r.from), isoInstant(r.to), isoInstant(r.days[0]!.from), isoInstant(r.days.at(-1)!.to)];
    };
    assert.deepEqual(await ends('2026-11-23T14:00:00.5Z', T), [
      '2026-11-23T14:00:00.000Z',
      '2026-11-23T14:15:00.000Z',
      '2026-11-23T14:00:00.000Z',
      '2026-11-23T14:15:00.000Z',
    ]);
    // A record between the end and its quarter hour (14:06…) keeps the end, read raw.
    assert.deepEqual(await ends('2026-11-23T14:01:30Z', '2026-11-23T14:05:30Z'), [
      '2026-11-23T14:01:30.000Z',
      '2026-11-23T14:05:30.000Z',
      '2026-11-23T14:01:30.000Z',
      '2026-11-23T14:05:30.000Z',
    ]);
    // A kept end: the view counts the records before 14:05:30 only (y registers at 14:06).
    const o = await view(app, site.siteId, 'overview', key, {
      from: '2026-11-23T13:00:00Z',
      to: '2026-11-23T14:05:30Z',
      tz: 'UTC',
    });
    assert.deepEqual([o.body.data.visits, o.body.data.registrations, o.body.data.activations], [2, 1, 1], o.text);
  });
});
