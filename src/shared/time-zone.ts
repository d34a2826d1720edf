/**
 * How many zone spellings a process keeps what it learnt about; a full cache starts over. ICU
 * knows about 600 zones, but takes them in any letter case, so callers can send any number.
 */
export const MAX_KEPT_ZONES = 1000;

const KNOWN = new Set<string>();

/**
 * True when the string names a time zone the runtime's ICU knows (server and browser alike).
 * Known names are kept: building a DateTimeFormat to ask costs ~25 µs, on every analytics
 * request.
 */
export function isTimeZone(tz: string): boolean {
  if (KNOWN.has(tz)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    return false;
  }
  if (KNOWN.size >= MAX_KEPT_ZONES) KNOWN.clear();
  KNOWN.add(tz);
  return true;
}
