const KNOWN = new Set<string>();

/**
 * True when the string names a time zone the runtime's ICU knows (server and browser alike).
 * Known names are kept (a few hundred at most): building a DateTimeFormat to ask costs ~25 µs,
 * on every analytics request.
 */
export function isTimeZone(tz: string): boolean {
  if (KNOWN.has(tz)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    return false;
  }
  KNOWN.add(tz);
  return true;
}
