const counts = new Intl.NumberFormat('en-US');
export const count = (n: number) => counts.format(n);

export const percent = (r: number | null | undefined) =>
  r === null || r === undefined ? '—' : `${(r * 100).toFixed(1)}%`;

const currencyFormats = new Map<string, Intl.NumberFormat>();
/** An amount in minor units of `currency`, with that currency's own number of decimals. */
export function money(minor: number, currency: string): string {
  let f = currencyFormats.get(currency);
  if (!f) {
    try {
      f = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    } catch {
      f = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2 });
    }
    currencyFormats.set(currency, f);
  }
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(minor / 10 ** digits);
}

/** Every currency of a money map on its own, never summed: "$159.92 · €119.94", or "—". */
/** Amounts per currency; a null one (a CAC without registrations) is shown as `—` in its currency. */
export function moneyList(m: Record<string, number | null> | undefined): string {
  const entries = Object.entries(m ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return entries.length ? entries.map(([c, v]) => (v === null ? `${c} —` : money(v, c))).join(' · ') : '—';
}

export function dateTime(iso: string | null | undefined, tz?: string): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString('en-GB', {
    timeZone: tz,
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

/** A datetime-local value (the browser's zone) as an ISO instant, or undefined when empty. */
export const localInstant = (local: FormDataEntryValue | null) =>
  local ? new Date(String(local)).toISOString() : undefined;

export function time(iso: string, tz?: string): string {
  return new Date(iso).toLocaleTimeString('en-GB', {
    timeZone: tz,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

/** Only http(s) URLs become links; anything else a user wrote stays text. */
export function safeHref(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}
