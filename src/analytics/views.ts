import { addBuckets, addPeriod, rangeArrays, type RangeArrays } from './cover.ts';
import { isoInstant } from './calendar.ts';
import { hourCore, loadDays, total, type Coverage, type DayData, type Freshness } from './days.ts';
import { currenciesOf, Figures, ratio, scale, subtract, type Money } from './figures.ts';
import {
  campaigns,
  distinctUsers,
  funnelSteps,
  retentionCells,
  sources,
  subscriptionState,
  type ChunkPart,
  type Queryable,
} from './repo.ts';
import { withPendingSources } from './pending.ts';
import { AI_ASSISTANTS, visitAssistant, type AssistantId } from '../geo/traffic.ts';
import type { SharedSnapshots } from './snapshot.ts';
import { unitEconomics } from './unit-economics.ts';
import { viewWindows, type ViewWindows } from './read-window.ts';
import { periods, type Interval, type Window } from './window.ts';

/** Every analytics answer (CONTRACT §5). */
export interface ViewAnswer<D> {
  data: D;
  coverage: Coverage;
  currencies: string[];
  freshness: Freshness;
}

/** What a view computes besides the shared day figures: its data and the money maps in it. */
interface ViewResult<D> {
  data: D;
  money: Money[];
}

/**
 * A view: its own reads (`compute`) on `lanes - 1` connections while the day figures, coverage
 * and freshness are read on another, all in one snapshot (snapshot.ts), so data, coverage and
 * freshness agree with each other. `compute` answers for `at.w` and reads the rollups over
 * `at.reads` (read-window.ts), with what is pending per source only if `sources`; it awaits
 * the day figures when it needs them; on a pool too small for separate lanes it runs after them
 * on their connection.
 */
async function answer<D>(
  snapshots: SharedSnapshots,
  siteId: string,
  asked: Window,
  compute: (t: readonly Queryable[], days: Promise<DayData>, at: ViewWindows) => Promise<ViewResult<D>>,
  { lanes = 2, sources = false } = {},
): Promise<ViewAnswer<D>> {
  const [days, { data, money }] = await snapshots.read(lanes, async ([first, ...rest]) => {
    const at = await viewWindows(first!, siteId, asked);
    const days = loadDays([first!], siteId, at, { sources });
    if (rest.length === 0) {
      // One connection runs one query at a time: the day figures first, then the view's reads.
      const d = await days;
      return [d, await compute([first!], days, at)] as const;
    }
    const [d, r] = await Promise.allSettled([days, compute(rest, days, at)]);
    if (d.status === 'rejected') throw d.reason;
    if (r.status === 'rejected') throw r.reason;
    return [d.value, r.value] as const;
  });
  return { data, coverage: days.coverage, currencies: currenciesOf(money), freshness: days.freshness };
}

/**
 * A distinct-user read split by user-id chunk over every given connection at once; the parts
 * hold disjoint users, so their rows add up. Retention and funnels spend their time OR-ing and
 * AND-ing bitmaps, which splits evenly.
 */
async function inParts<R>(
  t: readonly Queryable[],
  read: (tx: Queryable, part: ChunkPart) => Promise<R[]>,
): Promise<R[]> {
  return (await Promise.all(t.map((tx, index) => read(tx, { index, of: t.length })))).flat();
}

/** Lanes of the views whose own reads split by chunk: the day figures' and two parts. */
const SPLIT_LANES = 3;

const whole = (w: Window): RangeArrays => rangeArrays([{ from: w.from, to: w.to, group: 0 }]);

/**
 * The instant subscription state is read at: the window's last microsecond, or now's if earlier
 * (a live window ends now: at its snapshot).
 */
const stateInstant = (w: Window, now: number) => (w.live ? w.to : Math.min(w.to, now)) - 0.001;

/** MRR, ARR and active subscriptions at the window's state instant. */
async function subscriptions(db: Queryable, siteId: string, w: Window, now: number) {
  const f = new Figures();
  let active = 0;
  for (const r of await subscriptionState(db, siteId, stateInstant(w, now))) {
    f.add('mrr', '', r.currency, r.mrr);
    active += r.active;
  }
  const mrr = f.money('mrr');
  return { mrr, arr: scale(mrr, 12), active };
}

function uptime(t: Figures) {
  const [healthy, degraded, down, unknown] = (['healthy', 'degraded', 'down', 'unknown'] as const).map((s) =>
    t.count('observations', s),
  );
  return { ratio: ratio(healthy! + degraded!, healthy! + degraded! + down!), healthy, degraded, down, unknown };
}

export function overview(snapshots: SharedSnapshots, siteId: string, asked: Window, now: number) {
  return answer(snapshots, siteId, asked, async ([tx], days, { w, reads }) => {
    const users = await distinctUsers(tx!, siteId, ['visitors', 'active'], whole(reads));
    const subs = await subscriptions(tx!, siteId, w, now);
    const { totals: t } = await days;
    const usersOf = (kind: string) => users.find((u) => u.kind === kind)?.users ?? 0;
    const receipts = t.money('receipts');
    const refunds = t.money('refunds');
    const costs = t.money('costs');
    const data = {
      visits: t.count('visits'),
      visitors: usersOf('visitors'),
      registrations: t.count('registrations'),
      activations: t.count('activations'),
      // Days without usage events but with an active_users summary add that summary's value.
      active_users: usersOf('active') + t.count('active_users'),
      paid_orders: t.count('paid_orders'),
      receipts,
      refunds,
      net_revenue: subtract(receipts, refunds),
      costs,
      mrr: subs.mrr,
      uptime: uptime(t),
    };
    return { data, money: [receipts, refunds, costs, subs.mrr] };
  });
}

/** Timeseries has no reads of its own: the day figures, their per-day values on a lane of their own. */
export async function timeseries(snapshots: SharedSnapshots, siteId: string, asked: Window, interval: Interval) {
  // Other zones read their days as ranges of buckets, all on one connection.
  const lanes = hourCore(asked) ? 2 : 1;
  const { w, days, summaryDays, coverage, freshness } = await snapshots.read(lanes, async (t) => {
    const at = await viewWindows(t[0]!, siteId, asked);
    return { w: at.w, ...(await loadDays(t, siteId, at, { dayMetrics: TIMESERIES_METRICS })) };
  });
  const money: Money[] = [];
  const buckets = periods(w, interval).map(({ period, days: idx }) => {
    const t = total(days, idx);
    const receipts = t.money('receipts');
    const refunds = t.money('refunds');
    const costs = t.money('costs');
    money.push(receipts, refunds, costs);
    // Unobserved: no record of any family and no summary on any of its days — distinct
    // from a day whose records add up to zero.
    const observed = idx.some((i) => summaryDays.has(i) || days[i]!.hasRecords());
    return {
      start: isoInstant(period.from),
      end: isoInstant(period.to),
      label: period.label,
      observed,
      visits: t.count('visits'),
      registrations: t.count('registrations'),
      activations: t.count('activations'),
      paid_orders: t.count('paid_orders'),
      receipts,
      refunds,
      net_revenue: subtract(receipts, refunds),
      costs,
    };
  });
  return { data: { interval, buckets }, coverage, currencies: currenciesOf(money), freshness };
}

/** What timeseries reads per day, besides what every view does (PRESENCE_METRICS). */
const TIMESERIES_METRICS = ['visits', 'registrations', 'activations', 'paid_orders', 'receipts', 'refunds', 'costs'];

export function finance(snapshots: SharedSnapshots, siteId: string, asked: Window, now: number) {
  return answer(snapshots, siteId, asked, async ([tx], days, { w }) => {
    const subs = await subscriptions(tx!, siteId, w, now);
    const { totals: t } = await days;
    const receipts = t.money('receipts');
    const refunds = t.money('refunds');
    const net = subtract(receipts, refunds);
    const costs = t.money('costs');
    const expenses = t.money('expenses');
    const data = {
      receipts,
      refunds,
      net_revenue: net,
      costs: { total: costs, by_category: t.moneyByDim('costs') },
      expenses: { total: expenses, by_scope: t.moneyByDim('expenses') },
      margin: subtract(net, costs, expenses),
      mrr: subs.mrr,
      arr: subs.arr,
      subscriptions: {
        active: subs.active,
        new: t.count('new_subscriptions'),
        churned: t.count('churned_subscriptions'),
      },
    };
    return { data, money: [receipts, refunds, costs, expenses, subs.mrr] };
  });
}

interface SourceFigures {
  visits: number;
  registrations: number;
  activations: number;
  paid_orders: number;
  revenue: Money;
  spend: Money;
}

function presentSource(f: SourceFigures) {
  const cac: Record<string, number | null> = {};
  const roas: Record<string, number | null> = {};
  for (const [currency, spend] of Object.entries(f.spend)) {
    cac[currency] = f.registrations > 0 ? Math.round(spend / f.registrations) : null;
    roas[currency] = ratio(f.revenue[currency] ?? 0, spend);
  }
  return { ...f, cac, roas };
}

export function acquisition(snapshots: SharedSnapshots, siteId: string, asked: Window) {
  return answer(
    snapshots,
    siteId,
    asked,
    async ([tx], days, { reads }) => {
      const ranges = whole(reads);
      const stored = sources(tx!, siteId, ranges);
      stored.catch(() => undefined); // awaited below; a failure before then must not go unhandled
      const { pending } = await days;
      const rows = withPendingSources(await stored, pending, ranges);
      const known = await campaigns(tx!, siteId);
      const campaignOf = new Map(known.map((c) => [c.campaign_id, c]));
      const byChannel = new Map<string | null, SourceFigures>();
      const byCampaign = new Map<string, SourceFigures>();
      const byAssistant = new Map<AssistantId, SourceFigures>();
      const empty = (): SourceFigures => ({
        visits: 0,
        registrations: 0,
        activations: 0,
        paid_orders: 0,
        revenue: {},
        spend: {},
      });
      for (const r of rows) {
        // An event without a channel takes its campaign's; spend always does.
        const channel = r.channel || campaignOf.get(r.campaign_id)?.channel || null;
        const targets = [byChannel.get(channel) ?? byChannel.set(channel, empty()).get(channel)!];
        if (r.campaign_id)
          targets.push(byCampaign.get(r.campaign_id) ?? byCampaign.set(r.campaign_id, empty()).get(r.campaign_id)!);
        // The same rows by the AI assistant their source names (geo/traffic.ts), if any.
        const assistant = visitAssistant({
          channel: r.channel || null,
          campaign_id: r.campaign_id || null,
          campaign_name: campaignOf.get(r.campaign_id)?.name ?? null,
        });
        if (assistant) targets.push(byAssistant.get(assistant) ?? byAssistant.set(assistant, empty()).get(assistant)!);
        for (const f of targets) {
          if (r.metric === 'revenue' || r.metric === 'spend')
            f[r.metric][r.currency] = (f[r.metric][r.currency] ?? 0) + r.value;
          else f[r.metric as 'visits' | 'registrations' | 'activations' | 'paid_orders'] += r.value;
        }
      }
      const channels = [...byChannel]
        .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)))
        .map(([channel, f]) => ({ channel, ...presentSource(f) }));
      const campaignList = [...byCampaign]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([id, f]) => ({
          campaign_id: id,
          name: campaignOf.get(id)?.name ?? null,
          channel: campaignOf.get(id)?.channel ?? null,
          ...presentSource(f),
        }));
      const assistants = AI_ASSISTANTS.filter((a) => byAssistant.has(a.id)).map((a) => ({
        assistant: a.id,
        ...presentSource(byAssistant.get(a.id)!),
      }));
      const money = [...channels, ...campaignList].flatMap((s) => [s.revenue, s.spend]);
      return { data: { channels, campaigns: campaignList, assistants }, money };
    },
    { sources: true },
  );
}

/** Funnel steps: the event type and the user set (sql/analytics/rollup-sets.sql) it reads. */
const FUNNEL = [
  { step: 'visit', kind: 'visitors' },
  { step: 'registration_completed', kind: 'registered' },
  { step: 'activation_completed', kind: 'activated' },
  { step: 'order_paid', kind: 'paid' },
] as const;

export function funnel(snapshots: SharedSnapshots, siteId: string, asked: Window) {
  return answer(
    snapshots,
    siteId,
    asked,
    async (t, _days, { reads }) => {
      const rows = await inParts(t, (tx, part) =>
        funnelSteps(
          tx,
          siteId,
          FUNNEL.map((s) => s.kind),
          whole(reads),
          part,
        ),
      );
      const users = FUNNEL.map((_, i) => rows.reduce((n, r) => (r.step === i + 1 ? n + r.users : n), 0));
      const steps = FUNNEL.map((s, i) => ({
        step: s.step,
        users: users[i]!,
        conversion_from_previous: i === 0 ? null : ratio(users[i]!, users[i - 1]!),
      }));
      return { data: { steps, overall_conversion: ratio(users.at(-1)!, users[0]!) }, money: [] };
    },
    { lanes: SPLIT_LANES },
  );
}

/** 0001-01-01, the earliest timestamp ingest accepts: where "before the window" starts. */
const BEGINNING = new Date(0).setUTCFullYear(1, 0, 1);

export function retention(snapshots: SharedSnapshots, siteId: string, asked: Window) {
  return answer(
    snapshots,
    siteId,
    asked,
    async (t, _days, { w, reads }) => {
      const weeks = periods(w, 'week').map((p) => p.period);
      const ranges = rangeArrays(
        periods(reads, 'week').map(({ period: p }, i) => ({ from: p.from, to: p.to, group: i })),
      );
      // Group -1, everything before the window: whole months from the beginning, then the rest.
      const monthStart = Date.UTC(new Date(reads.from).getUTCFullYear(), new Date(reads.from).getUTCMonth(), 1);
      if (BEGINNING < monthStart) addBuckets(ranges, { grain: 'm', lo: BEGINNING, hi: monthStart }, -1);
      addPeriod(ranges, monthStart, reads.from, -1);
      const cells = new Map<string, number>();
      for (const c of await inParts(t, (tx, part) => retentionCells(tx, siteId, ranges, part))) {
        const k = `${c.cohort}:${c.week}`;
        cells.set(k, (cells.get(k) ?? 0) + c.users);
      }
      const cell = (cohort: number, week: number) => cells.get(`${cohort}:${week}`) ?? 0;
      const cohorts = weeks.map((p, i) => {
        const size = cell(i, i);
        return {
          label: p.label,
          start: isoInstant(p.from),
          end: isoInstant(p.to),
          users: size,
          weeks: weeks.slice(i + 1).map((_, k) => {
            const active = cell(i, i + 1 + k);
            return { offset: k + 1, active_users: active, share: ratio(active, size) };
          }),
        };
      });
      return { data: { cohorts }, money: [] };
    },
    { lanes: SPLIT_LANES },
  );
}

/**
 * Unit economics (unit-economics.ts): its customers in two parts, each on its own connection,
 * beside the day figures, coverage and freshness.
 */
export function economics(snapshots: SharedSnapshots, siteId: string, asked: Window, limit: number) {
  return answer(
    snapshots,
    siteId,
    asked,
    async (t, _days, { w }) => {
      const data = await unitEconomics(t, siteId, w, limit);
      return { data, money: [data.totals.revenue, data.totals.spend] };
    },
    { lanes: SPLIT_LANES },
  );
}
