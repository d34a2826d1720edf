/**
 * Local calendar arithmetic in an IANA time zone with nothing but Intl: which local day an
 * instant falls on, and the instant a local day starts. Days are numbered from 1970-01-01
 * (day 0), so "the next day" is +1 whatever the zone's offset or daylight saving time does.
 */

import { UncuttableZone } from '../errors/uncuttable-zone-error.ts';
import { MAX_KEPT_ZONES } from '../shared/time-zone.ts';

export const MINUTE = 60_000;
export const QUARTER = 15 * MINUTE;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size >= MAX_KEPT_ZONES) formatters.clear();
    formatters.set(tz, f);
  }
  return f;
}

/** The zone's canonical spelling (`utc` → `UTC`), as reported back to the caller. */
export function canonicalZone(tz: string): string {
  return formatter(tz).resolvedOptions().timeZone;
}

/** The local wall-clock time of `t` in `tz`, as if that wall clock were UTC. */
function wallClock(tz: string, t: number): number {
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(t)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const d = new Date(0);
  d.setUTCFullYear(p.year!, p.month! - 1, p.day!);
  d.setUTCHours(p.hour!, p.minute!, p.second!, 0);
  return d.getTime();
}

/** The number of the local day containing instant `t`. */
export function localDay(tz: string, t: number): number {
  return Math.floor(wallClock(tz, t) / DAY);
}

/**
 * The first instant of local day `day`. Usually local midnight; where daylight saving time
 * skips midnight, the first instant that exists. Throws UncuttableZone when that instant is
 * not on a UTC quarter hour, which the rollup buckets cannot cut.
 */
export function dayStart(tz: string, day: number): number {
  const key = `${tz} ${day}`;
  let start = starts.get(key);
  if (start === undefined) {
    start = computeDayStart(tz, day);
    // Windows are mostly recent days of a few zones; a full cache starts over.
    if (starts.size >= 100_000) starts.clear();
    starts.set(key, start);
  }
  return start;
}

/** Zone and day → start: Intl is slow enough that a 90-day window would cost milliseconds. */
const starts = new Map<string, number>();

function computeDayStart(tz: string, day: number): number {
  const midnightUtc = day * DAY;
  const guess = midnightUtc - (wallClock(tz, midnightUtc) - midnightUtc);
  const guess2 = midnightUtc - (wallClock(tz, guess) - guess);
  let start: number | null = null;
  for (const g of [guess, guess2]) {
    if (g % QUARTER === 0 && localDay(tz, g) === day && localDay(tz, g - 1) < day) start = g;
  }
  if (start === null) {
    // Midnight skipped by a transition: the smallest quarter hour already on `day`.
    let lo = Math.floor((midnightUtc - 15 * HOUR) / QUARTER);
    let hi = Math.ceil((midnightUtc + 15 * HOUR) / QUARTER);
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (localDay(tz, mid * QUARTER) >= day) hi = mid;
      else lo = mid + 1;
    }
    start = lo * QUARTER;
    if (localDay(tz, start - 1) >= day)
      throw new UncuttableZone(`local day ${isoDate(day)} in ${tz} does not start on a quarter hour`);
  }
  return start;
}

/** Day number of a `YYYY-MM-DD` date. */
export function dayOfDate(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  const t = new Date(0);
  t.setUTCFullYear(y!, m! - 1, d!);
  return Math.floor(t.getTime() / DAY);
}

/** `YYYY-MM-DD` of a day number. */
export function isoDate(day: number): string {
  return new Date(day * DAY).toISOString().slice(0, 10);
}

/** 0 for Monday … 6 for Sunday. */
export function weekday(day: number): number {
  // Day 0, 1970-01-01, was a Thursday.
  return (((day + 3) % 7) + 7) % 7;
}

/** The first day of the month containing `day`. */
export function monthStart(day: number): number {
  const d = new Date(day * DAY);
  return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / DAY);
}

/**
 * The instant of a UTC timestamp as normalizeTimestamp writes it (`…T14:13:27.123456789Z`), as
 * epoch ms with a fraction, rounded to the microsecond as PostgreSQL rounds it (rint of the
 * fraction's microseconds): records' `occurred_at` are stored that way, so a bound compares with
 * them as the client wrote it. Exact to the microsecond within some centuries of 1970.
 */
export function instantOf(utc: string): number {
  const whole = Date.parse(`${utc.slice(0, 19)}Z`);
  const us = Number(`0.${utc.slice(20, -1)}`) * 1e6;
  const rounded = Math.round(us);
  // rint: halves to even
  return whole + (rounded - us === 0.5 && rounded % 2 !== 0 ? rounded - 1 : rounded) / 1000;
}

/** An instant as UTC ISO 8601: milliseconds always, microseconds when it has any. */
export function isoInstant(t: number): string {
  let ms = Math.floor(t);
  let us = Math.round((t - ms) * 1000);
  if (us === 1000) [ms, us] = [ms + 1, 0];
  const iso = new Date(ms).toISOString();
  return us === 0 ? iso : `${iso.slice(0, -1)}${String(us).padStart(3, '0')}Z`;
}
