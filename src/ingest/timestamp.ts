/**
 * Timestamps as the spec defines them (2.1): ISO 8601 date-time with a mandatory zone
 * (`Z` or `±hh:mm`), optional seconds, optional fraction, a real calendar date.
 *
 * Radar stores and returns every timestamp in UTC with `Z` (CONTRACT §2), keeping the
 * fraction digits the client sent (up to nanoseconds) instead of rounding through `Date`.
 */
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

export const TIMESTAMP_PATTERN = TIMESTAMP.source;

const MONTH_DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return MONTH_DAYS[month]!;
}

// Two-digit fields by value: a lookup instead of String().padStart for five fields of every
// ingested timestamp.
const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));

/**
 * The UTC form of a valid timestamp, or null with the reason when it is not one.
 * `2024-03-01T07:30+08:00` → `2024-02-29T23:30:00Z`; `2024-01-01T00:00:00.120Z` → `…00.12Z`.
 */
export function normalizeTimestamp(value: string): { utc: string } | { error: string } {
  const m = TIMESTAMP.exec(value);
  if (!m) return { error: 'must be an ISO 8601 date-time with a zone, e.g. 2026-01-31T12:00:00Z' };
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  const year = Number(y),
    month = Number(mo),
    day = Number(d),
    hour = Number(h),
    minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
    return { error: 'is not a valid calendar date' };
  if (hour > 23 || minute > 59 || second > 59) return { error: 'is not a valid time of day' };
  let offsetMinutes = 0;
  if (!z) {
    if (Number(oh) > 23 || Number(om) > 59) return { error: 'has an invalid zone offset' };
    offsetMinutes = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  }
  // The zone offset moves the time by less than a day, so the date by at most one day: done by
  // hand, without a Date and its field reads, on every ingested timestamp.
  const minutes = hour * 60 + minute - offsetMinutes;
  const dayShift = Math.floor(minutes / 1440);
  const utcMinutes = minutes - dayShift * 1440;
  let uy = year,
    um = month,
    ud = day + dayShift;
  if (ud < 1) {
    if (--um < 1) {
      um = 12;
      uy--;
    }
    ud = daysInMonth(uy, um);
  } else if (ud > daysInMonth(uy, um)) {
    ud = 1;
    if (++um > 12) {
      um = 1;
      uy++;
    }
  }
  // PostgreSQL has no year 0, and four digits are what the format allows.
  if (uy < 1 || uy > 9999) return { error: 'is outside the years 0001 to 9999 in UTC' };
  const fraction = frac?.endsWith('0') ? frac.replace(/0+$/, '') : (frac ?? '');
  return {
    utc: `${uy < 1000 ? String(uy).padStart(4, '0') : uy}-${TWO_DIGITS[um]}-${TWO_DIGITS[ud]}T${TWO_DIGITS[Math.floor(utcMinutes / 60)]}:${TWO_DIGITS[utcMinutes % 60]}:${TWO_DIGITS[second]}${fraction ? `.${fraction}` : ''}Z`,
  };
}

/** Orders two normalized UTC timestamps (negative, zero, positive), fraction digits included. */
export function compareUtc(a: string, b: string): number {
  const whole = (t: string) => Date.parse(`${t.slice(0, 19)}Z`);
  const frac = (t: string) => (t.length > 20 ? t.slice(20, -1) : '').padEnd(9, '0');
  return whole(a) - whole(b) || (frac(a) < frac(b) ? -1 : frac(a) > frac(b) ? 1 : 0);
}
