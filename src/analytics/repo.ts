import { RESOURCES } from '../auth/scopes.ts';
import { pgp, type Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';
import { isoInstant, QUARTER } from './calendar.ts';
import type { RangeArrays, Span } from './cover.ts';

const q = {
  txSettings: sqlFile('analytics/tx-settings.sql'),
  lock: sqlFile('analytics/rollup-lock.sql'),
  unlock: sqlFile('analytics/rollup-unlock.sql'),
  drain: sqlFile('analytics/rollup-drain.sql'),
  userIds: sqlFile('analytics/rollup-user-ids.sql'),
  counts: sqlFile('analytics/rollup-counts.sql'),
  sets: sqlFile('analytics/rollup-sets.sql'),
  levels: sqlFile('analytics/rollup-levels.sql'),
  pendingDeltas: sqlFile('analytics/pending-deltas.sql'),
  pendingCounts: sqlFile('analytics/pending-counts.sql'),
  foldCounts: sqlFile('analytics/fold-counts.sql'),
  foldZeros: sqlFile('analytics/fold-zeros.sql'),
  foldUserIds: sqlFile('analytics/fold-user-ids.sql'),
  foldSets: sqlFile('analytics/fold-sets.sql'),
  foldClear: sqlFile('analytics/fold-clear.sql'),
  dirtySites: sqlFile('analytics/dirty-sites.sql'),
  series: sqlFile('analytics/series.sql'),
  dayHours: sqlFile('analytics/day-hours.sql'),
  dayPresence: sqlFile('analytics/day-presence.sql'),
  sources: sqlFile('analytics/sources.sql'),
  distinctUsers: sqlFile('analytics/distinct-users.sql'),
  funnel: sqlFile('analytics/funnel.sql'),
  retention: sqlFile('analytics/retention.sql'),
  summaries: sqlFile('analytics/summaries.sql'),
  subscriptions: sqlFile('analytics/subscriptions.sql'),
  campaigns: sqlFile('analytics/campaigns.sql'),
  freshness: sqlFile('analytics/freshness.sql'),
  edgeCounts: sqlFile('analytics/edge-counts.sql'),
  edgeSets: sqlFile('analytics/edge-sets.sql'),
  edgeRawUsers: sqlFile('analytics/edge-raw-users.sql'),
  noEdgeCounts: sqlFile('analytics/no-edge-counts.sql'),
  noEdgeRawUsers: sqlFile('analytics/no-edge-raw-users.sql'),
  quietSpans: sqlFile('analytics/quiet-spans.sql'),
};

/** A database, task or transaction: the queries below run in any. */
export type Queryable = Pick<Db, 'one' | 'oneOrNone' | 'any' | 'none' | 'many'>;

/** Inside a transaction: the settings of sql/analytics/tx-settings.sql for its remaining statements. */
export async function applyTxSettings(t: Queryable): Promise<void> {
  await t.none(q.txSettings);
}

// ---- rollup (a fold: under the site's lock, in one repeatable-read transaction) ----

/**
 * Takes the site's rollup lock on this connection, outside any transaction (unlockSiteRollup
 * releases it): waits for it, or with `wait` false only takes it if free. Whether it was taken.
 */
export async function lockSiteRollup(t: Queryable, siteId: string, wait: boolean): Promise<boolean> {
  return (await t.one<{ locked: boolean }>(q.lock, { siteId, wait })).locked;
}

export async function unlockSiteRollup(t: Queryable, siteId: string): Promise<void> {
  await t.one(q.unlock, { siteId });
}

/** The site's dirty hours (revised records), removed from the dirty list. */
export async function drainDirtyHours(t: Queryable, siteId: string): Promise<Date[]> {
  return (await t.any<{ hour: Date }>(q.drain, { siteId })).map((r) => r.hour);
}

/** Rebuilds the quarter-hour rollups of the site for these UTC hours from the raw records. */
export async function rebuildHours(t: Queryable, siteId: string, hours: readonly Date[]): Promise<void> {
  const p = { siteId, hours };
  await t.none(q.userIds, p);
  await t.none(q.counts, p);
  await t.none(q.sets, p);
}

/**
 * Moves the site's pending changes into the quarter-hour rollups, except in `rebuilt` hours,
 * and deletes them. Returns the quarter hours written.
 */
export async function foldPending(t: Queryable, siteId: string, rebuilt: readonly Date[]): Promise<Date[]> {
  const p = { siteId, hours: rebuilt, lo: '-infinity', hi: 'infinity', view: false, sources: true };
  const counts = (
    await t.any<{ bucket: Date }>(q.foldCounts, { ...p, pendingDeltas: pgp.as.format(q.pendingDeltas, p) })
  ).map((r) => r.bucket);
  if (counts.length) await t.none(q.foldZeros, { siteId, buckets: counts });
  await t.none(q.foldUserIds, p);
  const sets = (await t.any<{ bucket: Date }>(q.foldSets, p)).map((r) => r.bucket);
  await t.none(q.foldClear, p);
  return [...counts, ...sets];
}

/** Rebuilds the coarser rollups (hours to months, presence) over these UTC hours from the quarter hours. */
export async function rebuildLevels(t: Queryable, siteId: string, hours: readonly Date[]): Promise<void> {
  await t.none(q.levels, { siteId, hours });
}

export function dirtySites(db: Queryable): Promise<{ site_id: string }[]> {
  return db.any(q.dirtySites);
}

// ---- reads ----

/**
 * The parameters of a read of ranges: the ranges, and the CTEs reading its raw spans
 * (edge-counts.sql, or edge-sets.sql with its pending users) formatted with them, for the read's
 * WITH; the raw spans' empty stand-ins when there are none.
 */
function ranged(siteId: string, r: RangeArrays, edges: 'edgeCounts' | 'edgeSets') {
  const p = { siteId, ...r };
  const raw = r.rawLos.length > 0;
  if (edges === 'edgeCounts') return { ...p, edgeCounts: pgp.as.format(raw ? q.edgeCounts : q.noEdgeCounts, p) };
  const rawUsers = pgp.as.format(raw ? q.edgeRawUsers : q.noEdgeRawUsers, p);
  return { ...p, edgeSets: pgp.as.format(q.edgeSets, { ...p, rawUsers }) };
}

export interface SeriesRow {
  grp: number;
  metric: string;
  dim: string;
  currency: string;
  value: number;
  first_at: Date | null;
  last_at: Date | null;
}

/** `metrics`: only these metrics; null: all. */
export function series(
  db: Queryable,
  siteId: string,
  r: RangeArrays,
  metrics: readonly string[] | null,
): Promise<SeriesRow[]> {
  return db.any(q.series, { ...ranged(siteId, r, 'edgeCounts'), metrics });
}

/** [UTC day start (epoch ms), metric, dim, currency, 24 hourly values] */
export type DayHours = [number, string, string, string, number[]];

/** Site totals of these metrics on whole UTC days with their hourly values; `from`, `to` are UTC midnights. */
export async function dayHours(
  db: Queryable,
  siteId: string,
  from: number,
  to: number,
  metrics: readonly string[],
): Promise<DayHours[]> {
  const { rows } = await db.one<{ rows: string }>(q.dayHours, {
    siteId,
    from: isoInstant(from),
    to: isoInstant(to),
    metrics,
  });
  if (!rows) return [];
  return rows.split('\n').map((line) => {
    const [bucket, metric, dim, currency, hours] = line.split('|') as [string, string, string, string, string];
    return [Number(bucket), metric, dim, currency, hours.slice(1, -1).split(',').map(Number)];
  });
}

/** A UTC day with data: its start (epoch ms), its metrics and, for each, a bitmask of its hours with data. */
export interface DayPresence {
  day: number;
  metrics: string[];
  hours: number[];
}

/** The hours with data per metric of the UTC days in [from, to) (UTC midnights) that have any. */
export async function dayPresence(db: Queryable, siteId: string, from: number, to: number): Promise<DayPresence[]> {
  const { rows } = await db.one<{ rows: string }>(q.dayPresence, {
    siteId,
    from: isoInstant(from),
    to: isoInstant(to),
  });
  if (!rows) return [];
  return rows.split('\n').map((line) => {
    const [day, metrics, hours] = line.split('|') as [string, string, string];
    return { day: Number(day), metrics: metrics.split(','), hours: hours.split(',').map(Number) };
  });
}

export interface SourceRow {
  channel: string;
  campaign_id: string;
  metric: string;
  currency: string;
  value: number;
}

export function sources(db: Queryable, siteId: string, r: RangeArrays): Promise<SourceRow[]> {
  return db.any(q.sources, ranged(siteId, r, 'edgeCounts'));
}

export function distinctUsers(
  db: Queryable,
  siteId: string,
  kinds: readonly string[],
  r: RangeArrays,
): Promise<{ grp: number; kind: string; users: number }[]> {
  return db.any(q.distinctUsers, { ...ranged(siteId, r, 'edgeSets'), kinds });
}

/** Which user-id chunks a distinct-user read covers: those with chunk % of = index. */
export interface ChunkPart {
  index: number;
  of: number;
}

export function funnelSteps(
  db: Queryable,
  siteId: string,
  kinds: readonly string[],
  r: RangeArrays,
  part: ChunkPart,
): Promise<{ step: number; users: number }[]> {
  return db.many(q.funnel, { ...ranged(siteId, r, 'edgeSets'), kinds, part: part.index, parts: part.of });
}

export function retentionCells(
  db: Queryable,
  siteId: string,
  r: RangeArrays,
  part: ChunkPart,
): Promise<{ cohort: number; week: number; users: number }[]> {
  return db.any(q.retention, { ...ranged(siteId, r, 'edgeSets'), part: part.index, parts: part.of });
}

export interface SummaryRow {
  metric: string;
  period_start: Date;
  period_end: Date;
  value: number;
  currency: string | null;
}

export function summaries(db: Queryable, siteId: string, from: number, to: number): Promise<SummaryRow[]> {
  return db.any(q.summaries, { siteId, from: isoInstant(from), to: isoInstant(to) });
}

/** Per currency with any: MRR and active subscriptions at instant `at`. */
export function subscriptionState(
  db: Queryable,
  siteId: string,
  at: number,
): Promise<{ currency: string; mrr: number; active: number }[]> {
  return db.any(q.subscriptions, { siteId, at: isoInstant(at) });
}

export function campaigns(
  db: Queryable,
  siteId: string,
): Promise<{ campaign_id: string; name: string; channel: string }[]> {
  return db.any(q.campaigns, { siteId });
}

export interface FreshnessRow {
  pending_hours: number;
  oldest_pending: Date | null;
  last_received_at: Date | null;
  now: Date;
}

export function freshness(db: Queryable, siteId: string): Promise<FreshnessRow> {
  return db.one(q.freshness, { siteId, resources: RESOURCES });
}

/** A pending change's figure (pending-counts.sql): what it adds to a quarter hour's rollup row. */
export interface PendingRow {
  /** The quarter hour's start, epoch ms. */
  bucket: number;
  metric: string;
  per_source: boolean;
  channel: string;
  campaign_id: string;
  dim: string;
  currency: string;
  value: number;
  first_at: Date | null;
  last_at: Date | null;
}

/** For each span (epoch ms, [from, to)): whether the site holds nothing there that a rollup counts. */
export async function quietSpans(db: Queryable, siteId: string, spans: readonly Span[]): Promise<boolean[]> {
  const rows = await db.any<{ quiet: boolean }>(q.quietSpans, {
    siteId,
    los: spans.map((s) => isoInstant(s.from)),
    his: spans.map((s) => isoInstant(s.to)),
  });
  return rows.map((r) => r.quiet);
}

/** A `$n` placeholder where a QueryFile has a named parameter, to make a statement to prepare. */
const placeholder = (n: number) => ({ rawType: true, toPostgres: () => `$${n}` });

/**
 * pendingCounts as a prepared statement: PostgreSQL plans it once per connection instead of on
 * every view (its CTEs took 3–8 ms to plan, against under 1 ms to run with little pending).
 */
const PENDING_COUNTS = {
  name: 'analytics-pending-counts',
  text: pgp.as.format(q.pendingCounts, {
    pendingDeltas: pgp.as.format(q.pendingDeltas, {
      siteId: placeholder(1),
      hours: placeholder(2),
      lo: placeholder(3),
      hi: placeholder(4),
      view: placeholder(5),
      sources: placeholder(6),
    }),
  }),
};

/**
 * What the site's pending changes (not folded into the rollups yet) add to its counts in the
 * quarter hours of [from, to) (epoch ms, rounded out to quarter hours); the figures per
 * acquisition source only when `sources`.
 */
export function pendingCounts(
  db: Queryable,
  siteId: string,
  from: number,
  to: number,
  sources: boolean,
): Promise<PendingRow[]> {
  const lo = isoInstant(Math.floor(from / QUARTER) * QUARTER);
  const hi = isoInstant(Math.ceil(to / QUARTER) * QUARTER);
  return db.any({ ...PENDING_COUNTS, values: [siteId, [], lo, hi, true, sources] });
}
