import { RESOURCES } from '../auth/scopes.ts';
import { pgp, type Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';
import { isoInstant } from './calendar.ts';
import type { RangeArrays } from './cover.ts';

const q = {
  txSettings: sqlFile('analytics/tx-settings.sql'),
  lock: sqlFile('analytics/rollup-lock.sql'),
  drain: sqlFile('analytics/rollup-drain.sql'),
  expand: sqlFile('analytics/rollup-expand.sql'),
  userIds: sqlFile('analytics/rollup-user-ids.sql'),
  counts: sqlFile('analytics/rollup-counts.sql'),
  sets: sqlFile('analytics/rollup-sets.sql'),
  levels: sqlFile('analytics/rollup-levels.sql'),
  state: sqlFile('analytics/rollup-state.sql'),
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
  noEdgeCounts: sqlFile('analytics/no-edge-counts.sql'),
  noEdgeSets: sqlFile('analytics/no-edge-sets.sql'),
};

/** A database, task or transaction: the queries below run in any. */
export type Queryable = Pick<Db, 'one' | 'oneOrNone' | 'any' | 'none' | 'many'>;

/** Inside a transaction: the settings of sql/analytics/tx-settings.sql for its remaining statements. */
export async function applyTxSettings(t: Queryable): Promise<void> {
  await t.none(q.txSettings);
}

// ---- rollup (all inside one transaction holding the site's lock) ----

export async function lockSiteRollup(t: Queryable, siteId: string): Promise<void> {
  await t.one(q.lock, { siteId });
}

/** The site's dirty hours, removed from the dirty list. */
export async function drainDirtyHours(t: Queryable, siteId: string): Promise<Date[]> {
  return (await t.any<{ hour: Date }>(q.drain, { siteId })).map((r) => r.hour);
}

/** Other hours whose figures depend on records in `hours` (sessions, first touch). */
export async function dependentHours(t: Queryable, siteId: string, hours: readonly Date[]): Promise<Date[]> {
  return (await t.any<{ hour: Date }>(q.expand, { siteId, hours })).map((r) => r.hour);
}

/** Recomputes every rollup of the site for these UTC hours, from quarter hours to months. */
export async function recomputeHours(t: Queryable, siteId: string, hours: readonly Date[]): Promise<void> {
  const p = { siteId, hours };
  await t.none(q.userIds, p);
  await t.none(q.counts, p);
  await t.none(q.sets, p);
  await t.none(q.levels, p);
  await t.none(q.state, p);
}

export function dirtySites(db: Queryable): Promise<{ site_id: string }[]> {
  return db.any(q.dirtySites);
}

// ---- reads ----

/**
 * The parameters of a read of ranges: the ranges, and the CTEs reading its raw spans
 * (edge-counts.sql or edge-sets.sql) formatted with them, for the read's WITH; their empty
 * stand-ins when there are none.
 */
function ranged(siteId: string, r: RangeArrays, edges: 'edgeCounts' | 'edgeSets') {
  const p = { siteId, ...r };
  const none = edges === 'edgeCounts' ? q.noEdgeCounts : q.noEdgeSets;
  return { ...p, [edges]: r.rawLos.length > 0 ? pgp.as.format(q[edges], p) : pgp.as.format(none) };
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
  computed_at: Date | null;
  pending_hours: number;
  oldest_pending: Date | null;
  last_received_at: Date | null;
  now: Date;
}

export function freshness(db: Queryable, siteId: string): Promise<FreshnessRow> {
  return db.one(q.freshness, { siteId, resources: RESOURCES });
}
