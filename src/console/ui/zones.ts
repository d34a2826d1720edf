/** Today's date (YYYY-MM-DD) in `tz`. */
export function todayIn(tz: string, now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    now,
  );
}

/** `date` plus `days` calendar days, as YYYY-MM-DD. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Offset of `tz` from UTC at `utcMs`, in ms. */
function offsetAt(tz: string, utcMs: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(utcMs);
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return (
    Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) -
    Math.floor(utcMs / 1000) * 1000
  );
}

/** A wall-clock time `YYYY-MM-DDTHH:mm` in `tz` as a UTC ISO instant (the later one in a fold). */
export function zonedToUtc(local: string, tz: string): string {
  const wall = Date.parse(`${local}:00Z`);
  let utc = wall - offsetAt(tz, wall);
  utc = wall - offsetAt(tz, utc);
  return new Date(utc).toISOString().replace('.000Z', 'Z');
}

/** A UTC instant as `YYYY-MM-DDTHH:mm` wall-clock time in `tz`. */
export function utcToZoned(iso: string, tz: string): string {
  const ms = Date.parse(iso);
  return new Date(ms + offsetAt(tz, ms)).toISOString().slice(0, 16);
}

export const ZONES: string[] =
  typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : ['Asia/Shanghai', 'UTC'];
