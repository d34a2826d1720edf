import { sqlFile } from '../db/sql-file.ts';
import { HOUR, isoInstant } from './calendar.ts';
import type { Figures, Money } from './figures.ts';
import type { Queryable } from './repo.ts';
import type { Window } from './window.ts';

const q = { spend: sqlFile('analytics/relay-spend.sql') };

/** The cost category a site's model calls through the relay count under. */
export const RELAY_CATEGORY = 'usage';

/** What `coverage.relay` says about the window's model calls. */
export interface RelayCoverage {
  /** The cost category relay spend is counted under in `costs`. */
  category: typeof RELAY_CATEGORY;
  calls: number;
  /** Calls without a cost (model unpriced, or no tokens reported): in no money figure. */
  unpriced_calls: number;
  /** Exact spend in nanos (10^-9 of the unit), before rounding up to minor units. */
  spend_nanos: Money;
  days_with_calls: number;
  last_call_at: string | null;
}

const DIGITS = new Map<string, number>();

/**
 * Minor-unit digits of a currency (USD 2, JPY 0, KWD 3), from the runtime's ISO 4217 data. Kept
 * per currency: building the NumberFormat that knows it costs ~10 µs, on every row of a view.
 */
export function minorDigits(currency: string): number {
  let digits = DIGITS.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    DIGITS.set(currency, digits);
  }
  return digits;
}

/**
 * Nanos in minor units, rounded up: like each call's cost (rounded up to a whole nano), spend
 * is never rounded down to free.
 */
export function nanosToMinor(nanos: number, currency: string): number {
  const per = 10 ** (9 - minorDigits(currency));
  return Math.ceil(nanos / per);
}

/**
 * Each local day's whole UTC hours (read from the hourly rollup) and the parts of it that cut
 * an hour (read from the calls), as relay-spend.sql takes them.
 */
function spendParams(siteId: string, w: Window) {
  const p = {
    siteId,
    starts: [] as string[],
    hlos: [] as string[],
    hhis: [] as string[],
    rawLos: [] as string[],
    rawHis: [] as string[],
    rawGroups: [] as number[],
  };
  const raw = (from: number, to: number, grp: number) => {
    if (from >= to) return;
    p.rawLos.push(isoInstant(from));
    p.rawHis.push(isoInstant(to));
    p.rawGroups.push(grp);
  };
  w.days.forEach((d, grp) => {
    const hlo = Math.ceil(d.from / HOUR) * HOUR;
    const hhi = Math.max(hlo, Math.floor(d.to / HOUR) * HOUR);
    p.starts.push(isoInstant(d.from));
    p.hlos.push(isoInstant(hlo));
    p.hhis.push(isoInstant(hhi));
    if (hlo < hhi) {
      raw(d.from, hlo, grp);
      raw(hhi, d.to, grp);
    } else raw(d.from, d.to, grp);
  });
  return p;
}

/**
 * Adds the site's model spend through the relay to `days` (each local day's spend rounded up
 * to minor units) and `totals` (the sum of its days, so days and weeks add up to the window)
 * as costs of category `usage`, and says in coverage what was added. A day with calls is
 * observed (`records:relay_calls`), like a day with records.
 */
export async function addRelaySpend(
  db: Queryable,
  siteId: string,
  w: Window,
  days: Figures[],
  totals: Figures,
): Promise<RelayCoverage> {
  const rows = await db.any<{
    grp: number;
    currency: string | null;
    calls: number;
    unpriced: number;
    nanos: number;
    last_at: Date;
  }>(q.spend, spendParams(siteId, w));
  const cover: RelayCoverage = {
    category: RELAY_CATEGORY,
    calls: 0,
    unpriced_calls: 0,
    spend_nanos: {},
    days_with_calls: new Set(rows.map((r) => r.grp)).size,
    last_call_at: null,
  };
  let last = 0;
  for (const r of rows) {
    cover.calls += r.calls;
    cover.unpriced_calls += r.unpriced;
    last = Math.max(last, r.last_at.getTime());
    days[r.grp]!.add('records:relay_calls', '', '', r.calls);
    if (r.currency === null || r.calls === r.unpriced) continue;
    cover.spend_nanos[r.currency] = (cover.spend_nanos[r.currency] ?? 0) + r.nanos;
    const minor = nanosToMinor(r.nanos, r.currency);
    days[r.grp]!.add('costs', RELAY_CATEGORY, r.currency, minor);
    totals.add('costs', RELAY_CATEGORY, r.currency, minor);
  }
  if (rows.length) cover.last_call_at = isoInstant(last);
  return cover;
}
