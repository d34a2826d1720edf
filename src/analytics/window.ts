import { HttpError } from '../errors/http-error.ts';
import { canonicalZone, dayOfDate, dayStart, isoDate, localDay, monthStart, QUARTER, UncuttableZone, weekday } from './calendar.ts';
import type { AnalyticsQuery } from './schemas.ts';

/** The longest window a view answers for, in local days. */
export const MAX_WINDOW_DAYS = 366;
/** The default window: this many local days up to and including today. */
export const DEFAULT_WINDOW_DAYS = 30;

/** A stretch of the window: a local day, week or month, clipped to the window. */
export interface Period {
  /** epoch ms, inclusive */
  from: number;
  /** epoch ms, exclusive */
  to: number;
  /** The local date it starts on, `YYYY-MM-DD` (for a clipped first period, the window's). */
  label: string;
}

export interface Window {
  from: number;
  to: number;
  tz: string;
  /** The local days the window touches, in order, clipped to it. */
  days: Period[];
}

export type Interval = 'day' | 'week' | 'month';

function invalid(name: string, message: string): HttpError {
  return new HttpError('validation_failed', { errors: [{ path: `query.${name}`, message }] });
}

/**
 * The window a query asks for. `from`/`to` are local dates in `tz` (`to` exclusive) or
 * timestamps on a quarter hour; by default the last 30 local days, today included.
 */
export function resolveWindow(q: AnalyticsQuery, defaultTz: string, now: number): Window {
  const tz = canonicalZone(q.tz ?? defaultTz);
  try {
    const bound = (name: 'from' | 'to', v: string | undefined, fallbackDay: number): number => {
      if (v === undefined) return dayStart(tz, fallbackDay);
      if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return dayStart(tz, dayOfDate(v));
      const t = Date.parse(v);
      if (t % QUARTER !== 0) throw invalid(name, 'a timestamp must fall on a quarter hour (e.g. 10:00, 10:15); use a date for whole days');
      return t;
    };
    const today = localDay(tz, now);
    const to = bound('to', q.to, today + 1);
    const from = bound('from', q.from, localDay(tz, to - 1) - (DEFAULT_WINDOW_DAYS - 1));
    if (to <= from) throw invalid('to', 'must be after from');
    const first = localDay(tz, from);
    const last = localDay(tz, to - 1);
    if (last - first + 1 > MAX_WINDOW_DAYS) throw invalid('to', `the window may span at most ${MAX_WINDOW_DAYS} days`);
    const days: Period[] = [];
    for (let d = first; d <= last; d++) {
      days.push({ from: Math.max(from, dayStart(tz, d)), to: Math.min(to, dayStart(tz, d + 1)), label: isoDate(d) });
    }
    return { from, to, tz, days };
  } catch (err) {
    if (err instanceof UncuttableZone) throw invalid('tz', `${err.message}; choose a window after the zone adopted a standard offset`);
    throw err;
  }
}

/**
 * The window cut into local days, ISO weeks (Monday first) or calendar months, each clipped
 * to the window. Returns, for each period, the indexes of its days in `w.days`.
 */
export function periods(w: Window, interval: Interval): { period: Period; days: number[] }[] {
  const out: { period: Period; days: number[] }[] = [];
  const key = (day: number) => (interval === 'day' ? day : interval === 'week' ? day - weekday(day) : monthStart(day));
  w.days.forEach((p, i) => {
    const day = dayOfDate(p.label);
    const last = out.at(-1);
    if (last && key(dayOfDate(last.period.label)) === key(day)) {
      last.period.to = p.to;
      last.days.push(i);
    } else {
      out.push({ period: { ...p }, days: [i] });
    }
  });
  return out;
}
