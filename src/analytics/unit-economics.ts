import { sqlFile } from '../db/sql-file.ts';
import { DAY, HOUR, isoInstant } from './calendar.ts';
import { addMoney, ratio, sortedMoney, type Money } from './figures.ts';
import { minorDigits, nanosToMinor } from './relay-spend.ts';
import type { Queryable } from './repo.ts';
import type { Window } from './window.ts';

const q = { economics: sqlFile('analytics/unit-economics.sql') };

/** Why a customer's margin is null: it would need a conversion, or a cost nobody knows. */
export type MarginReason = 'currencies_differ' | 'unpriced_calls';

/** One customer's revenue against what their model calls cost, in the window. */
export interface CustomerEconomics {
  /** null: calls that named no customer and payments without `external_user_id`. */
  external_user_id: string | null;
  /** Succeeded payments − succeeded refunds, minor units per currency. */
  revenue: Money;
  /** Model spend through the relay, minor units per currency, rounded up. */
  spend: Money;
  /** The same spend exact, in nanos. */
  spend_nanos: Money;
  /** revenue − spend, when both are in one currency and every call has a cost; else null. */
  margin: Money | null;
  margin_reason: MarginReason | null;
  calls: number;
  /** Calls without a cost (model unpriced, or no tokens reported): not in `spend`. */
  unpriced_calls: number;
  input_tokens: number;
  output_tokens: number;
}

/** One row of unit-economics.sql: a customer's (or every call's) figures in the window. */
interface Acc {
  revenue: Money;
  spend_nanos: Money;
  calls: number;
  unpriced_calls: number;
  input_tokens: number;
  output_tokens: number;
}

/**
 * The margin is revenue − spend only when nothing needs converting and nothing is unknown:
 * all of the customer's money in one currency (either side may be empty: no revenue is 0 in
 * the spend's currency), and every call costed. Otherwise both sides are shown and the margin
 * is null with the reason, so a customer is never called profitable on a guessed exchange rate
 * or on calls counted as free.
 */
function present(id: string | null, a: Acc): CustomerEconomics {
  const spend: Money = {};
  for (const [c, n] of Object.entries(a.spend_nanos)) spend[c] = nanosToMinor(n, c);
  const currencies = new Set([...Object.keys(a.revenue), ...Object.keys(spend)]);
  let margin: Money | null = null;
  let reason: MarginReason | null = null;
  if (a.unpriced_calls > 0) reason = 'unpriced_calls';
  else if (currencies.size > 1) reason = 'currencies_differ';
  else margin = Object.fromEntries([...currencies].map((c) => [c, (a.revenue[c] ?? 0) - (spend[c] ?? 0)]));
  return {
    external_user_id: id,
    revenue: sortedMoney(a.revenue),
    spend: sortedMoney(spend),
    spend_nanos: sortedMoney(a.spend_nanos),
    margin,
    margin_reason: reason,
    calls: a.calls,
    unpriced_calls: a.unpriced_calls,
    input_tokens: a.input_tokens,
    output_tokens: a.output_tokens,
  };
}

interface Row extends Acc {
  list: 'top' | 'low' | 'unattributed' | 'totals';
  currency: string | null;
  customer: string | null;
  /** What the list is ordered by: −spend nanos ('top'), the margin ('low'); a bigint as text, exact. */
  key: string | null;
  /** The customer counts, the same on every row of a part. */
  count: number;
  with_margin: number;
  negative_margin: number;
  currencies_differ: number;
  unpriced_customers: number;
}

let nanosPerMinor: string | null = null;

/**
 * Nanos per minor unit of every currency the runtime knows, for the SQL's rounding up. Built on
 * first use, not at import: a NumberFormat per currency pages in ICU's currency data and leaves
 * ~300 formatters of garbage, which cost the front door ~5 MB of resident memory at startup.
 */
function nanosPerMinorJson(): string {
  return (nanosPerMinor ??= JSON.stringify(
    Object.fromEntries(Intl.supportedValuesOf('currency').map((c) => [c, 10 ** (9 - minorDigits(c))])),
  ));
}

/** A list's order: by key, ties by customer in byte order (as SQL's `COLLATE "C"`). */
function ranked(a: Row, b: Row): number {
  const d = BigInt(a.key!) - BigInt(b.key!);
  return d !== 0n ? (d < 0n ? -1 : 1) : Buffer.compare(Buffer.from(a.customer!), Buffer.from(b.customer!));
}

/**
 * The first `limit` rows of `list` per currency over every part, in rank order: lists of one
 * currency each, since amounts in different currencies are never compared. Each part ranked
 * its own `limit`, so the first `limit` of theirs together are the first of all. `currencies`:
 * those to list even when no customer is in them.
 */
function perCurrency(rows: readonly Row[], list: Row['list'], limit: number, currencies: readonly string[] = []) {
  const out = new Map<string, Row[]>(currencies.map((c) => [c, []]));
  for (const r of rows.filter((x) => x.list === list)) {
    (out.get(r.currency!) ?? out.set(r.currency!, []).get(r.currency!)!).push(r);
  }
  return [...out]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, customers]) => ({
      currency,
      customers: customers
        .sort(ranked)
        .slice(0, limit)
        .map((r) => present(r.customer, r)),
    }));
}

const COUNTS = ['count', 'with_margin', 'negative_margin', 'currencies_differ', 'unpriced_customers'] as const;
const FIGURES = ['calls', 'unpriced_calls', 'input_tokens', 'output_tokens', ...COUNTS] as const;
type Totals = Acc & Pick<Row, (typeof COUNTS)[number]>;

/** Every part's totals row added up: the parts hold disjoint customers. */
function sumParts(rows: readonly Row[]): Totals {
  const sum = { revenue: {}, spend_nanos: {}, ...Object.fromEntries(FIGURES.map((k) => [k, 0])) } as Totals;
  for (const r of rows) {
    for (const [c, v] of Object.entries(r.revenue)) addMoney(sum.revenue, c, v);
    for (const [c, v] of Object.entries(r.spend_nanos)) addMoney(sum.spend_nanos, c, v);
    for (const k of FIGURES) sum[k] += r[k];
  }
  return sum;
}

/**
 * Where the rollup (customer_economics: UTC hours and UTC days) cuts [from, to), epoch ms:
 * whole days [dayLo, dayHi) inside the whole hours [hourLo, hourHi), and the ends shorter than
 * an hour outside them, read raw. A window of local days in a zone off UTC (Asia/Shanghai's
 * midnight is 16:00 UTC) takes its first and last hours from the hour rows; one without a whole
 * day has dayLo = dayHi = hourHi, and one without a whole hour is raw from end to end.
 */
export function cuts(from: number, to: number) {
  const hourLo = Math.ceil(from / HOUR) * HOUR;
  const hourHi = Math.floor(to / HOUR) * HOUR;
  if (hourLo >= hourHi) return { hourLo: to, dayLo: to, dayHi: to, hourHi: to };
  const dayLo = Math.ceil(hourLo / DAY) * DAY;
  const dayHi = Math.floor(hourHi / DAY) * DAY;
  return dayLo < dayHi ? { hourLo, dayLo, dayHi, hourHi } : { hourLo, dayLo: hourHi, dayHi: hourHi, hourHi };
}

/**
 * Unit economics of a window: per customer (matched by `external_user_id`) net revenue against
 * the model spend of the calls made for them through the site's relay keys; the customers
 * with the highest spend and the lowest margins per currency; and how many customers lose
 * money. Rows of calls naming no customer and of payments without one are `unattributed`.
 * Every customer is aggregated and ranked in SQL (unit-economics.sql), split by customer over
 * every connection given (one snapshot), which is where the time goes; only the rows shown
 * come back.
 */
export async function unitEconomics(t: readonly Queryable[], siteId: string, w: Window, limit: number) {
  const c = cuts(w.from, w.to);
  const params = {
    siteId,
    from: isoInstant(w.from),
    to: isoInstant(w.to),
    hourLo: isoInstant(c.hourLo),
    dayLo: isoInstant(c.dayLo),
    dayHi: isoInstant(c.dayHi),
    hourHi: isoInstant(c.hourHi),
    limit,
    per: nanosPerMinorJson(),
    parts: t.length,
  };
  const rows = (await Promise.all(t.map((db, part) => db.any<Row>(q.economics, { ...params, part })))).flat();
  const sum = sumParts(rows.filter((r) => r.list === 'totals'));
  const unattributed = rows.find((r) => r.list === 'unattributed');
  const total = present(null, sum);
  return {
    customers: {
      count: sum.count,
      with_margin: sum.with_margin,
      negative_margin: sum.negative_margin,
      negative_margin_share: ratio(sum.negative_margin, sum.with_margin),
      margin_unknown: { currencies_differ: sum.currencies_differ, unpriced_calls: sum.unpriced_customers },
    },
    top_spenders: perCurrency(rows, 'top', limit, Object.keys(total.spend_nanos)),
    lowest_margins: perCurrency(rows, 'low', limit),
    unattributed: unattributed ? present(null, unattributed) : null,
    totals: {
      revenue: total.revenue,
      spend: total.spend,
      spend_nanos: total.spend_nanos,
      calls: total.calls,
      unpriced_calls: total.unpriced_calls,
      input_tokens: total.input_tokens,
      output_tokens: total.output_tokens,
    },
  };
}
