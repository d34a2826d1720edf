import { sqlFile } from '../db/sql-file.ts';
import { isoInstant } from './calendar.ts';
import { addMoney, ratio, sortedMoney, type Money } from './figures.ts';
import { nanosToMinor } from './relay-spend.ts';
import type { Queryable } from './repo.ts';
import type { Window } from './window.ts';

const q = {
  spend: sqlFile('analytics/customer-spend.sql'),
  revenue: sqlFile('analytics/customer-revenue.sql'),
};

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

interface Acc {
  revenue: Money;
  spend_nanos: Money;
  calls: number;
  unpriced_calls: number;
  input_tokens: number;
  output_tokens: number;
}

const newAcc = (): Acc => ({
  revenue: {},
  spend_nanos: {},
  calls: 0,
  unpriced_calls: 0,
  input_tokens: 0,
  output_tokens: 0,
});

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

const marginOf = (c: CustomerEconomics) => Object.values(c.margin ?? {})[0] ?? 0;
const byId = (a: CustomerEconomics, b: CustomerEconomics) => a.external_user_id!.localeCompare(b.external_user_id!);

/**
 * Per currency, the `limit` rows first by `order` among those `has` a figure in it: lists of
 * one currency each, since amounts in different currencies are never compared.
 */
function perCurrency(
  rows: readonly CustomerEconomics[],
  currencies: Iterable<string>,
  has: (c: CustomerEconomics, currency: string) => boolean,
  order: (currency: string) => (a: CustomerEconomics, b: CustomerEconomics) => number,
  limit: number,
) {
  return [...currencies].sort().map((currency) => ({
    currency,
    customers: rows
      .filter((c) => has(c, currency))
      .sort(order(currency))
      .slice(0, limit),
  }));
}

/**
 * Unit economics of a window: per customer (matched by `external_user_id`) net revenue against
 * the model spend of the calls made for them through the site's relay keys; the customers
 * with the highest spend and the lowest margins per currency; and how many customers lose
 * money. Rows of calls naming no customer and of payments without one are `unattributed`.
 */
export async function unitEconomics(db: Queryable, siteId: string, w: Window, limit: number) {
  const bounds = { siteId, from: isoInstant(w.from), to: isoInstant(w.to) };
  const spendRows = await db.any<{
    customer: string | null;
    currency: string | null;
    calls: number;
    unpriced: number;
    nanos: number;
    input_tokens: number;
    output_tokens: number;
  }>(q.spend, bounds);
  const revenueRows = await db.any<{ customer: string | null; currency: string; net: number }>(q.revenue, bounds);

  const accs = new Map<string | null, Acc>();
  const accOf = (id: string | null) => accs.get(id) ?? accs.set(id, newAcc()).get(id)!;
  const totals = newAcc();
  for (const r of spendRows) {
    for (const a of [accOf(r.customer), totals]) {
      a.calls += r.calls;
      a.unpriced_calls += r.unpriced;
      a.input_tokens += r.input_tokens;
      a.output_tokens += r.output_tokens;
      if (r.currency !== null && r.calls > r.unpriced) addMoney(a.spend_nanos, r.currency, r.nanos);
    }
  }
  for (const r of revenueRows) for (const a of [accOf(r.customer), totals]) addMoney(a.revenue, r.currency, r.net);

  const customers = [...accs].filter(([id]) => id !== null).map(([id, a]) => present(id, a));
  const withMargin = customers.filter((c) => c.margin !== null);
  const negative = withMargin.filter((c) => marginOf(c) < 0).length;
  const unknown = (reason: MarginReason) => customers.filter((c) => c.margin_reason === reason).length;
  const total = present(null, totals);
  const spendCurrencies = Object.keys(total.spend);
  const marginCurrencies = new Set(withMargin.flatMap((c) => Object.keys(c.margin!)));

  return {
    customers: {
      count: customers.length,
      with_margin: withMargin.length,
      negative_margin: negative,
      negative_margin_share: ratio(negative, withMargin.length),
      margin_unknown: { currencies_differ: unknown('currencies_differ'), unpriced_calls: unknown('unpriced_calls') },
    },
    top_spenders: perCurrency(
      customers,
      spendCurrencies,
      (c, cur) => c.spend_nanos[cur] !== undefined,
      (cur) => (a, b) => b.spend_nanos[cur]! - a.spend_nanos[cur]! || byId(a, b),
      limit,
    ),
    lowest_margins: perCurrency(
      withMargin,
      marginCurrencies,
      (c, cur) => c.margin![cur] !== undefined,
      () => (a, b) => marginOf(a) - marginOf(b) || byId(a, b),
      limit,
    ),
    unattributed: accs.has(null) ? present(null, accs.get(null)!) : null,
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
