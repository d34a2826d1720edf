/** A report window: `from` inclusive, `to` exclusive, days cut in `tz`. */
export interface ReportWindow {
  from: string;
  to: string;
  tz: string;
}

const DAY_MS = 86_400_000;

/** The window a query asks for; by default the 30 days up to now, in the report time zone. */
export function reportWindow(q: { from?: string; to?: string; tz?: string }, defaultTz: string, now = new Date()): ReportWindow {
  const to = q.to ?? now.toISOString();
  const from = q.from ?? new Date(Date.parse(to) - 30 * DAY_MS).toISOString();
  return { from, to, tz: q.tz ?? defaultTz };
}

/** The calendar date (YYYY-MM-DD) of an instant in a time zone. */
export function localDate(instant: Date, tz: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(instant);
}

/** Every local date the window touches, in order. */
export function daysOf(w: ReportWindow): string[] {
  const first = localDate(new Date(w.from), w.tz);
  const last = localDate(new Date(Date.parse(w.to) - 1), w.tz);
  const days: string[] = [];
  for (let d = Date.parse(`${first}T00:00:00Z`); ; d += DAY_MS) {
    const day = new Date(d).toISOString().slice(0, 10);
    if (day > last) break;
    days.push(day);
  }
  return days;
}
