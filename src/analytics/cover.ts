import { DAY, HOUR, QUARTER } from './calendar.ts';

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
    if (t === Date.UTC(new Date(t).getUTCFullYear(), new Date(t).getUTCMonth(), 1) && month <= to) [grain, next] = ['m', month];
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

/** Ranges of many periods, as the parallel arrays the SQL unnests; `groups[i]` names the period. */
export interface RangeArrays {
  grains: Grain[];
  los: string[];
  his: string[];
  groups: number[];
}

export function rangeArrays(periods: ReadonlyArray<{ from: number; to: number; group: number }>): RangeArrays {
  const r: RangeArrays = { grains: [], los: [], his: [], groups: [] };
  for (const p of periods) {
    for (const c of cover(p.from, p.to)) {
      r.grains.push(c.grain);
      r.los.push(new Date(c.lo).toISOString());
      r.his.push(new Date(c.hi).toISOString());
      r.groups.push(p.group);
    }
  }
  return r;
}
