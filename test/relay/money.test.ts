import assert from 'node:assert/strict';
import { test } from 'node:test';
import { costOf, fromNanos, meteredCost, priceAt, toNanos, type Price } from '../../src/relay/money.ts';
import { AmountSchema } from '../../src/relay/money.ts';

const usage = (
  input: number | null,
  output: number | null,
  cached: number | null = null,
  reasoning: number | null = null,
) => ({ input_tokens: input, output_tokens: output, cached_tokens: cached, reasoning_tokens: reasoning });
const price = (input: string, cachedInput: string, output: string, effectiveAt = new Date(0)): Price => ({
  effectiveAt,
  currency: 'USD',
  input: toNanos(input),
  cachedInput: toNanos(cachedInput),
  output: toNanos(output),
});

test('decimal amounts become integer nanos and back, exactly', () => {
  assert.equal(toNanos('0.15'), 150_000_000);
  assert.equal(toNanos('12'), 12_000_000_000);
  assert.equal(toNanos('0.000000001'), 1);
  assert.equal(fromNanos(150_000_000), '0.15');
  assert.equal(fromNanos(10_000), '0.00001');
  assert.equal(fromNanos(12_000_000_000), '12');
  assert.equal(fromNanos(0), '0');
  for (const bad of ['1e5', '-1', '0.1234567891', '.5', '1,5', ''])
    assert.equal(AmountSchema.safeParse(bad).success, false, bad);
});

test('a call costs uncached input, cached input and output (reasoning inside it) at their prices, rounded up to a nano', () => {
  // $2.50 / $1.25 / $10 per million: 1000 input of which 400 cached, 300 output of which 100 reasoning.
  const p = price('2.5', '1.25', '10');
  assert.equal(costOf(p, usage(1000, 300, 400, 100)), 600 * 2_500 + 400 * 1_250 + 300 * 10_000);
  // Reasoning is billed as part of the output, not a second time.
  assert.equal(costOf(p, usage(0, 300, 0, 300)), 300 * 10_000);
  // A model costing $0.00001 a call stays exact: 10 input tokens at $1 per million.
  assert.equal(costOf(price('1', '1', '0'), usage(10, 0)), 10_000);
  // A fraction of a nano rounds up, never to free.
  assert.equal(costOf(price('0.001', '0.001', '0'), usage(1, 0)), 1);
  assert.equal(costOf(p, usage(null, null)), null);
});

test('the price in force at the moment of the call is used; no price is unpriced, never 0', () => {
  const old = price('1', '1', '1', new Date('2026-01-01T00:00:00Z'));
  const next = price('2', '2', '2', new Date('2026-06-01T00:00:00Z'));
  const prices = [next, old];
  assert.equal(priceAt(prices, Date.parse('2026-05-31T23:59:59Z')), old);
  assert.equal(priceAt(prices, Date.parse('2026-06-01T00:00:00Z')), next);
  assert.equal(priceAt(prices, Date.parse('2025-12-31T00:00:00Z')), null);
  assert.deepEqual(meteredCost([], Date.now(), usage(10, 10), false), {
    cost_nanos: null,
    currency: null,
    unpriced: true,
  });
  assert.deepEqual(meteredCost(prices, Date.parse('2026-07-01T00:00:00Z'), usage(1_000_000, 0), false), {
    cost_nanos: 2_000_000_000,
    currency: 'USD',
    unpriced: false,
  });
  // A failed call nothing was reported for costs nothing; a successful one without tokens is unknown.
  assert.equal(meteredCost(prices, Date.now(), usage(null, null), true).cost_nanos, 0);
  assert.equal(meteredCost(prices, Date.now(), usage(null, null), false).cost_nanos, null);
});
