import { z } from 'zod';
import type { Usage } from './usage.ts';

/**
 * Money in the relay is integer nanos: 10^-9 of a currency's unit (a dollar, a yuan), so a
 * call costing $0.00001 is 10,000 nanos and nothing is ever a float. Prices are nanos per
 * million tokens. A single call's cost stays far below 2^53 nanos (about 9 million units), so
 * it travels as a JS number; sums live in PostgreSQL bigints.
 */
export const NANOS_PER_UNIT = 1_000_000_000n;

/** A decimal amount as clients write it ("0.15", "12"), at most 9 fraction digits. */
export const AmountSchema = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,9})?$/, 'a decimal amount such as "0.15", at most 9 digits after the point')
  .transform(toNanos);

export const CurrencySchema = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as USD');

export function toNanos(amount: string): number {
  const [whole, fraction = ''] = amount.split('.');
  return Number(BigInt(whole!) * NANOS_PER_UNIT + BigInt(fraction.padEnd(9, '0')));
}

/** Nanos as a decimal string without trailing zeros: 150000000 → "0.15". */
export function fromNanos(nanos: number | bigint | string): string {
  const n = BigInt(nanos);
  const sign = n < 0n ? '-' : '';
  const abs = n < 0n ? -n : n;
  const fraction = (abs % NANOS_PER_UNIT).toString().padStart(9, '0').replace(/0+$/, '');
  return `${sign}${abs / NANOS_PER_UNIT}${fraction ? `.${fraction}` : ''}`;
}

export interface Price {
  effectiveAt: Date;
  currency: string;
  /** Nanos per million tokens. */
  input: number;
  cachedInput: number;
  output: number;
}

/**
 * What a call cost in nanos, rounded up to a whole nano: uncached input at the input price,
 * cached input at the cached price, output (reasoning included: providers count reasoning
 * tokens inside the output tokens, and bill them as output) at the output price. Null when
 * the provider reported no input or output tokens.
 */
export function costOf(price: Price, usage: Usage): number | null {
  if (usage.input_tokens === null && usage.output_tokens === null) return null;
  const input = BigInt(usage.input_tokens ?? 0);
  const cached = BigInt(Math.min(usage.cached_tokens ?? 0, usage.input_tokens ?? 0));
  const output = BigInt(usage.output_tokens ?? 0);
  const perMillion =
    (input - cached) * BigInt(price.input) + cached * BigInt(price.cachedInput) + output * BigInt(price.output);
  return Number((perMillion + 999_999n) / 1_000_000n);
}

/** The price in force at `at`, from a model's prices newest first. */
export function priceAt(prices: readonly Price[], at: number): Price | null {
  for (const p of prices) if (p.effectiveAt.getTime() <= at) return p;
  return null;
}

/** What the meter stores of a call's cost. */
export interface MeteredCost {
  cost_nanos: number | null;
  currency: string | null;
  unpriced: boolean;
}

/**
 * The cost of a call to a model with `prices`, made at `at`: unpriced when no price was in
 * force; nothing (0) for a failed call the provider reported no tokens for; null when a
 * call went through but its tokens are unknown.
 */
export function meteredCost(prices: readonly Price[], at: number, usage: Usage, failed: boolean): MeteredCost {
  const price = priceAt(prices, at);
  if (!price) return { cost_nanos: null, currency: null, unpriced: true };
  const cost = costOf(price, usage);
  return { cost_nanos: cost ?? (failed ? 0 : null), currency: price.currency, unpriced: false };
}
