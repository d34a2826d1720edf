import { HttpError } from '../errors/http-error.ts';
import { UncuttableZone } from '../errors/uncuttable-zone-error.ts';
import {
  canonicalZone,
  dayOfDate,
  dayStart,
  instantOf,
  isoDate,
  isoInstant,
  localDay,
  monthStart,
  weekday,
} from './calendar.ts';
import type { WindowParams } from './schemas.ts';

/** The longest window a view answers for, in local days. */
export const MAX_WINDOW_DAYS = 366;
/** The default window: this many local days up to now, today's beginning included. */
export const DEFAULT_WINDOW_DAYS = 30;

/** A stretch of the window: a local day, week or month, clipped to the window. */
export interface Period {
  /** epoch ms, inclusive (a window's ends carry their microseconds as a fraction) */
  from: number;
  /** epoch ms, exclusive */
  to: number;
  /** The local date it starts on, `YYYY-MM-DD` (for a clipped first period, the window's). */
  label: string;
}

/**
 * A report window, the one definition analytics views and GEO reports share: `from` inclusive,
 * `to` exclusive, any two instants (to the microsecond), cut into the local days of `tz`.
 */
export interface Window {
  from: number;
  to: number;
  tz: string;
  /** The local days the window touches, in order, clipped to it. */
  days: Period[];
  /**
   * `to` was not asked for and the answer is read now: the window ends when the view's snapshot
   * is taken (windowAt), not when the request arrived, which under load can be seconds earlier.
   */
  live?: boolean;
}

export type Interval = 'day' | 'week' | 'month';

function invalid(name: string, message: string): HttpError {
  return new HttpError('validation_failed', { errors: [{ path: `query.${name}`, message }] });
}

/**
 * The window a query asks for. `from`/`to` are local dates in `tz` (the start of that day; `to`
 * exclusive) or instants with a zone. By default `to` is now and `from` the start of the local
 * day 29 days before the window's last: the last 30 local days up to now.
 */
export function resolveWindow(q: WindowParams, defaultTz: string, now: number): Window {
  const tz = canonicalZone(q.tz ?? defaultTz);
  try {
    const bound = (v: string | undefined, fallback: () => number): number => {
      if (v === undefined) return fallback();
      return /^\d{4}-\d{2}-\d{2}$/.test(v) ? dayStart(tz, dayOfDate(v)) : instantOf(v);
    };
    const to = bound(q.to, () => now);
    const from = bound(q.from, () => dayStart(tz, lastDay(tz, to) - (DEFAULT_WINDOW_DAYS - 1)));
    if (to <= from)
      throw invalid('to', q.to === undefined ? 'must be after from (to defaults to now)' : 'must be after from');
    const days = localDays(tz, from, to);
    if (days.length > MAX_WINDOW_DAYS) throw invalid('to', `the window may span at most ${MAX_WINDOW_DAYS} days`);
    return { from, to, tz, days };
  } catch (err) {
    if (err instanceof UncuttableZone)
      throw invalid('tz', `${err.message}; choose a window after the zone adopted a standard offset`);
    throw err;
  }
}

/** The local day holding the last instant before `end` (exclusive), to the microsecond. */
const lastDay = (tz: string, end: number) => localDay(tz, Math.ceil(end) - 1);

/** The local days of `tz` that [from, to) touches, in order, clipped to it. */
function localDays(tz: string, from: number, to: number): Period[] {
  const days: Period[] = [];
  const last = lastDay(tz, to);
  for (let d = localDay(tz, Math.floor(from)); d <= last; d++)
    days.push({ from: Math.max(from, dayStart(tz, d)), to: Math.min(to, dayStart(tz, d + 1)), label: isoDate(d) });
  return days;
}

/**
 * A live window (`live`) as it stands at `now`: ending at `now`. Records stored by then carry
 * times up to then, so a window ending at its snapshot's moment has nothing after its end in
 * its quarter hour (read-window.ts), where one ending when the request arrived has whatever
 * was stored while the view waited for its turn.
 */
export function windowAt(w: Window, now: number): Window {
  if (!w.live || now <= w.to) return w;
  return { ...w, to: now, days: localDays(w.tz, w.from, now) };
}

/** The window as answers name it: its exact ends in UTC, its zone and its local days. */
export function presentWindow(w: Window): { from: string; to: string; tz: string; days: number } {
  return { from: isoInstant(w.from), to: isoInstant(w.to), tz: w.tz, days: w.days.length };
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
