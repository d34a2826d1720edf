import { DAY, HOUR, isoInstant, QUARTER } from './calendar.ts';

/**
 * Rollup grains (sql/migrations/0004_analytics.sql, 0007_analytics_four_hour_grain.sql):
 * quarter hour, hour, four UTC hours (from midnight), UTC day, UTC month.
 */
export type Grain = 'q' | 'h' | 'h4' | 'd' | 'm';

const FOUR_HOURS = 4 * HOUR;

/** Buckets of one grain whose starts lie in [lo, hi) (epoch ms). */
export interface BucketRange {
  grain: Grain;
  lo: number;
  hi: number;
}

function nextUtcMonth(t: number): number {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * The fewest whole buckets that tile [from, to) exactly: months where a whole UTC month fits,
 * days where a whole UTC day fits, then four hours, hours, and quarter hours at the ragged ends. Runs of one
 * grain come back as one range. Both ends must be on a quarter hour.
 */
export function cover(from: number, to: number): BucketRange[] {
  if (from % QUARTER !== 0 || to % QUARTER !== 0) throw new RangeError(`window ${from}..${to} is not on quarter hours`);
  const out: BucketRange[] = [];
  for (let t = from; t < to; ) {
    let grain: Grain;
    let next: number;
    const month = nextUtcMonth(t);
    if (t === Date.UTC(new Date(t).getUTCFullYear(), new Date(t).getUTCMonth(), 1) && month <= to)
      [grain, next] = ['m', month];
    else if (t % DAY === 0 && t + DAY <= to) [grain, next] = ['d', t + DAY];
    else if (t % FOUR_HOURS === 0 && t + FOUR_HOURS <= to) [grain, next] = ['h4', t + FOUR_HOURS];
    else if (t % HOUR === 0 && t + HOUR <= to) [grain, next] = ['h', t + HOUR];
    else [grain, next] = ['q', t + QUARTER];
    const last = out.at(-1);
    if (last && last.grain === grain && last.hi === t) last.hi = next;
    else out.push({ grain, lo: t, hi: next });
    t = next;
  }
  return out;
}

/** A stretch of time read from raw records: [from, to), epoch ms (with a microsecond fraction). */
export interface Span {
  from: number;
  to: number;
}

/**
 * A period of any two instants: the whole buckets between its first and last quarter hour
 * (cover), and its ragged ends, the parts before the first and after the last, each shorter
 * than a quarter hour, which the reads take from the raw records. A period within one or two
 * quarter hours has no whole bucket and is one raw span.
 */
export function tile(from: number, to: number): { buckets: BucketRange[]; raw: Span[] } {
  const lo = Math.ceil(from / QUARTER) * QUARTER;
  const hi = Math.floor(to / QUARTER) * QUARTER;
  if (lo >= hi) return { buckets: [], raw: from < to ? [{ from, to }] : [] };
  const raw: Span[] = [];
  if (from < lo) raw.push({ from, to: lo });
  if (hi < to) raw.push({ from: hi, to });
  return { buckets: cover(lo, hi), raw };
}

/**
 * Bucket ranges and raw spans of many periods, as the parallel arrays the SQL unnests;
 * `groups[i]` and `rawGroups[i]` name the period. Every read of ranges (sql/analytics) adds the
 * raw spans' figures, counted from the records (edge-counts.sql, edge-sets.sql), to the buckets'.
 */
export interface RangeArrays {
  grains: Grain[];
  los: string[];
  his: string[];
  groups: number[];
  rawLos: string[];
  rawHis: string[];
  rawGroups: number[];
}

export function rangeArrays(periods: ReadonlyArray<{ from: number; to: number; group: number }>): RangeArrays {
  const r: RangeArrays = { grains: [], los: [], his: [], groups: [], rawLos: [], rawHis: [], rawGroups: [] };
  for (const p of periods) addPeriod(r, p.from, p.to, p.group);
  return r;
}

/** Adds the buckets and raw spans of [from, to) to `r` as group `group`. */
export function addPeriod(r: RangeArrays, from: number, to: number, group: number): void {
  const { buckets, raw } = tile(from, to);
  for (const c of buckets) addBuckets(r, c, group);
  for (const s of raw) {
    r.rawLos.push(isoInstant(s.from));
    r.rawHis.push(isoInstant(s.to));
    r.rawGroups.push(group);
  }
}

/** Adds one range of whole buckets to `r` as group `group`. */
export function addBuckets(r: RangeArrays, c: BucketRange, group: number): void {
  r.grains.push(c.grain);
  r.los.push(new Date(c.lo).toISOString());
  r.his.push(new Date(c.hi).toISOString());
  r.groups.push(group);
}
