import { RESOURCES, type Resource } from '../auth/scopes.ts';
import { rangeArrays, type RangeArrays, type Span } from './cover.ts';
import { Figures } from './figures.ts';
import { DAY, HOUR } from './calendar.ts';
import { pendingDayHours, pendingPresence, pendingSeries } from './pending.ts';
import {
  dayHours,
  dayPresence,
  freshness as loadFreshness,
  pendingCounts,
  series,
  summaries,
  type DayHours,
  type PendingRow,
  type Queryable,
  type SeriesRow,
  type SummaryRow,
} from './repo.ts';
import { addRelaySpend, type RelayCoverage } from './relay-spend.ts';
import type { ViewWindows } from './read-window.ts';
import { presentWindow, type Window } from './window.ts';

/**
 * The summary metrics (spec 2.4) that can stand in for raw records, the figure each feeds, and
 * the raw figure whose presence on a day means raw records of that metric exist there.
 */
const SUMMARY_FOLD = {
  visits: { presence: 'visit_events', money: false },
  registrations: { presence: 'registrations', money: false },
  activations: { presence: 'activations', money: false },
  active_users: { presence: 'active_events', money: false },
  receipts: { presence: 'records:payments', money: true },
  refunds: { presence: 'records:refunds', money: true },
  costs: { presence: 'records:costs', money: true },
} as const;
type SummaryMetric = keyof typeof SUMMARY_FOLD;

export interface FamilyCoverage {
  records: number;
  first_occurred_at: string | null;
  last_occurred_at: string | null;
  days_with_data: number;
  days_in_window: number;
}

export interface MetricSource {
  source: 'raw' | 'summaries' | 'raw+summaries' | 'none';
  raw_days: number;
  summary_days: number;
}

export interface Coverage {
  window: { from: string; to: string; tz: string; days: number };
  families: Record<Resource, FamilyCoverage>;
  metrics: Record<SummaryMetric, MetricSource>;
  summaries: { used: number; unused: number };
  /** The site's model calls through the relay, counted as `usage` costs (relay-spend.ts). */
  relay: RelayCoverage;
}

export interface Freshness {
  as_of: string | null;
  lag_seconds: number;
  pending_hours: number;
  last_received_at: string | null;
}

export interface DayData {
  /** The whole window's figures, summaries folded in. */
  totals: Figures;
  /** Per local day of the window (same order as `window.days`): the metrics asked for. */
  days: Figures[];
  /** Days on which at least one summary stood in for missing raw records. */
  summaryDays: Set<number>;
  coverage: Coverage;
  freshness: Freshness;
  /** What the changes not folded into the rollups yet add to them (views add it to every read). */
  pending: PendingRow[];
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * What coverage and the summary fold read per local day: whether a day has records of each
 * family, and raw records of each metric a summary can stand in for.
 */
export const PRESENCE_METRICS: readonly string[] = [
  ...new Set([...RESOURCES.map((r) => `records:${r}`), ...Object.values(SUMMARY_FOLD).map((f) => f.presence)]),
];

/**
 * The additive figures of the window and of each of its local days, with summaries folded in
 * where a day has no raw records of their metric, the coverage of every record family, and
 * freshness. Days hold PRESENCE_METRICS and `dayMetrics`: most views need the window's totals
 * only, and reading every metric of every day would cost them more than all else. Answers for
 * `w`, reading the rollups over `reads` (read-window.ts); `pending` holds the figures per
 * acquisition source only when `sources`.
 */
export async function loadDays(
  lanes: readonly Queryable[],
  siteId: string,
  { w, reads }: ViewWindows,
  { dayMetrics = [], sources = false }: { dayMetrics?: readonly string[]; sources?: boolean } = {},
): Promise<DayData> {
  const db = lanes[0]!;
  const core = hourCore(reads);
  let window: SeriesRow[];
  let days: Figures[];
  // Small (what arrived since the last fold), and every read below adds it.
  const pending = await pendingCounts(db, siteId, reads.from, reads.to, sources);
  /** The window's figures over `r`, pending changes included. */
  const totals = async (r: RangeArrays, metrics: readonly string[] | null) => [
    ...(await series(db, siteId, r, metrics)),
    ...pendingSeries(pending, r, metrics),
  ];
  if (core) {
    // The hourly values of `dayMetrics` (timeseries) are the biggest read: on a lane of their own
    // when there is one, while the rest is read on the first (one query at a time per connection).
    const { from, to } = utcDays(core);
    const values = async (t: Queryable) => [
      ...(await dayHours(t, siteId, from, to, dayMetrics)),
      ...pendingDayHours(pending, from, to, dayMetrics),
    ];
    const aside = dayMetrics.length > 0 && lanes[1] ? values(lanes[1]) : null;
    aside?.catch(() => undefined); // awaited below; a failure before then must not go unhandled
    // One read for the window's figures: its whole hours (group -1) and, as the groups of their
    // days, the parts of its first and last day outside them.
    window = await totals(rangeArrays([{ ...core, group: -1 }, ...fringes(reads, core)]), null);
    days = await daysFromHours(
      db,
      siteId,
      reads,
      core,
      PRESENCE_METRICS.filter((m) => !dayMetrics.includes(m)),
      aside ?? (dayMetrics.length > 0 ? values(db) : []),
      pending,
    );
    for (const r of window) if (r.grp >= 0) days[r.grp]!.add(r.metric, r.dim, r.currency, r.value);
  } else {
    window = await totals(rangeArrays([{ from: reads.from, to: reads.to, group: 0 }]), null);
    const metrics = [...new Set([...PRESENCE_METRICS, ...dayMetrics])];
    days = reads.days.map(() => new Figures());
    for (const r of await totals(
      rangeArrays(reads.days.map((d, i) => ({ from: d.from, to: d.to, group: i }))),
      metrics,
    ))
      days[r.grp]!.add(r.metric, r.dim, r.currency, r.value);
  }
  const sums = await summaries(db, siteId, w.from, w.to);
  const fresh = await loadFreshness(db, siteId);

  const sum = new Figures();
  const families = new Map<string, { records: number; first: Date | null; last: Date | null }>();
  for (const r of window) {
    sum.add(r.metric, r.dim, r.currency, r.value);
    if (!r.metric.startsWith('records:')) continue;
    const name = r.metric.slice('records:'.length);
    const f = families.get(name);
    if (!f) families.set(name, { records: r.value, first: r.first_at, last: r.last_at });
    else {
      f.records += r.value;
      if (r.first_at && (!f.first || r.first_at < f.first)) f.first = r.first_at;
      if (r.last_at && (!f.last || r.last_at > f.last)) f.last = r.last_at;
    }
  }

  const relay = await addRelaySpend(db, siteId, w, days, sum);

  // Counted before the fold, which adds summary figures to the days: for registrations and
  // activations the raw records' presence and the summary's figure have the same name.
  const rawDays = Object.fromEntries(
    (Object.keys(SUMMARY_FOLD) as SummaryMetric[]).map((m) => [
      m,
      days.filter((d) => d.count(SUMMARY_FOLD[m].presence) > 0).length,
    ]),
  ) as Record<SummaryMetric, number>;
  const { used, summaryDays, perMetric } = foldSummaries(w, days, sum, sums);
  const metrics = Object.fromEntries(
    (Object.keys(SUMMARY_FOLD) as SummaryMetric[]).map((m) => {
      const raw = rawDays[m];
      const summary = perMetric[m].size;
      const source = raw && summary ? 'raw+summaries' : summary ? 'summaries' : raw ? 'raw' : 'none';
      return [m, { source, raw_days: raw, summary_days: summary }];
    }),
  ) as Record<SummaryMetric, MetricSource>;

  return {
    totals: sum,
    days,
    summaryDays,
    pending,
    coverage: {
      window: presentWindow(w),
      families: Object.fromEntries(
        RESOURCES.map((r) => {
          const f = families.get(r);
          const withData = days.filter((d) => d.count(`records:${r}`) > 0).length;
          return [
            r,
            {
              records: f?.records ?? 0,
              first_occurred_at: iso(f?.first ?? null),
              last_occurred_at: iso(f?.last ?? null),
              days_with_data: withData,
              days_in_window: w.days.length,
            },
          ];
        }),
      ) as Record<Resource, FamilyCoverage>,
      metrics,
      summaries: { used, unused: sums.length - used },
      relay,
    },
    freshness: {
      // Every batch acknowledged before as_of is in the figures: pending inserts are read with
      // the rollups, and only revised records wait for a fold (analytics_dirty).
      as_of: iso(fresh.oldest_pending ?? fresh.now),
      lag_seconds: fresh.oldest_pending
        ? Math.max(0, Math.ceil((fresh.now.getTime() - fresh.oldest_pending.getTime()) / 1000))
        : 0,
      pending_hours: fresh.pending_hours,
      last_received_at: iso(fresh.last_received_at),
    },
  };
}

/**
 * The whole UTC hours of a window whose local days all start on whole hours (most zones,
 * Asia/Shanghai included), whose days are then summed from UTC days' hourly values; null for
 * other zones, and for a window holding no whole hour.
 */
export function hourCore(w: Window): Span | null {
  if (!w.days.every((d, i) => i === 0 || d.from % HOUR === 0)) return null;
  const core = { from: Math.ceil(w.from / HOUR) * HOUR, to: Math.floor(w.to / HOUR) * HOUR };
  return core.from < core.to ? core : null;
}

/** The parts of the window's days outside its whole hours `core`, each as the group of its day. */
function fringes(w: Window, core: Span): { from: number; to: number; group: number }[] {
  return w.days
    .flatMap((d, group) => [
      { from: d.from, to: Math.min(d.to, core.from), group },
      { from: Math.max(d.from, core.to), to: d.to, group },
    ])
    .filter((p) => p.from < p.to);
}

/**
 * Local days within `core` (hourCore), from UTC days: each hour goes to the local day
 * containing it. `valueRows` (read by the caller) are summed from their hourly values. Metrics
 * in `presence` are read from the days' hour bitmasks: their figure on a day is how many of its
 * hours have data, > 0 exactly when the day has data, which is all coverage and the summary
 * fold ask of them.
 */
async function daysFromHours(
  db: Queryable,
  siteId: string,
  w: Window,
  core: Span,
  presence: readonly string[],
  valueRows: Promise<DayHours[]> | DayHours[],
  pending: readonly PendingRow[],
): Promise<Figures[]> {
  const days = w.days.map(() => new Figures());
  const starts = w.days.map((d) => d.from);
  const { from, to } = utcDays(core);
  // The local day of each hour read, -1 outside the core.
  const dayOfHour = Array.from({ length: (to - from) / HOUR }, (_, h) => {
    const t = from + h * HOUR;
    return t < core.from || t >= core.to ? -1 : lastAtOrBefore(starts, t);
  });
  // A UTC day meets at most a few local days: add each one's share once, not hour by hour.
  const spread = (utcDay: number, at: (hour: number) => number, add: (day: number, sum: number) => void) => {
    const base = (utcDay - from) / HOUR;
    let day = -1;
    let sum = 0;
    for (let i = 0; i < 24; i++) {
      const value = at(i);
      const d = dayOfHour[base + i]!;
      if (value === 0 || d < 0) continue;
      if (d !== day) {
        if (sum !== 0) add(day, sum);
        day = d;
        sum = 0;
      }
      sum += value;
    }
    if (sum !== 0) add(day, sum);
  };
  for (const [utcDay, metric, dim, currency, hours] of await valueRows) {
    spread(
      utcDay,
      (i) => hours[i]!,
      (d, sum) => days[d]!.add(metric, dim, currency, sum),
    );
  }
  const wanted = new Set(presence);
  for (const { day: utcDay, metrics, hours } of [
    ...(await dayPresence(db, siteId, from, to)),
    ...pendingPresence(pending, from, to),
  ]) {
    metrics.forEach((metric, k) => {
      const mask = hours[k]!;
      if (wanted.has(metric))
        spread(
          utcDay,
          (i) => (mask >>> i) & 1,
          (d, n) => days[d]!.add(metric, '', '', n),
        );
    });
  }
  return days;
}

/** The whole UTC days covering a span: [from, to), UTC midnights. */
function utcDays(s: Span): Span {
  return { from: Math.floor(s.from / DAY) * DAY, to: Math.ceil(s.to / DAY) * DAY };
}

/** Index of the last element of an ascending array that is <= t. */
function lastAtOrBefore(sorted: readonly number[], t: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid]! <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Adds each summary to the day holding its whole period, and to the window's totals, when that
 * day has no raw records of the summary's metric. Summaries spanning several days, or whose
 * unit does not fit the metric (money without a currency, a count with one), are not used.
 */
function foldSummaries(w: Window, days: Figures[], totals: Figures, sums: readonly SummaryRow[]) {
  const perMetric = Object.fromEntries(Object.keys(SUMMARY_FOLD).map((m) => [m, new Set<number>()])) as Record<
    SummaryMetric,
    Set<number>
  >;
  const summaryDays = new Set<number>();
  let used = 0;
  for (const s of sums) {
    const fold = SUMMARY_FOLD[s.metric as SummaryMetric];
    if (!fold || fold.money !== (s.currency !== null)) continue;
    const start = s.period_start.getTime();
    const end = s.period_end.getTime();
    const i = w.days.findIndex((d) => d.from <= start && end <= d.to);
    if (i < 0 || days[i]!.count(fold.presence) > 0) continue;
    days[i]!.add(s.metric, '', s.currency ?? '', s.value);
    totals.add(s.metric, '', s.currency ?? '', s.value);
    perMetric[s.metric as SummaryMetric].add(i);
    summaryDays.add(i);
    used++;
  }
  return { used, summaryDays, perMetric };
}

/** The figures of several days added up. */
export function total(days: readonly Figures[], indexes?: readonly number[]): Figures {
  const t = new Figures();
  for (const i of indexes ?? days.keys()) t.addAll(days[i]!);
  return t;
}
