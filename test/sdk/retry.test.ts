import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRetryAfter, RETRYABLE_STATUSES, retryDelay } from '../../src/sdk/retry.ts';

const backoff = { baseMs: 250, maxMs: 30_000 };

test('the delay doubles per attempt up to the ceiling, half of it random', () => {
  assert.equal(
    retryDelay(0, null, backoff, () => 0),
    125,
  );
  assert.equal(
    retryDelay(0, null, backoff, () => 1),
    250,
  );
  assert.equal(
    retryDelay(3, null, backoff, () => 1),
    2000,
  );
  assert.equal(
    retryDelay(20, null, backoff, () => 0),
    15_000,
    'capped at maxMs, jitter floor half of it',
  );
});

test("never sooner than the server's Retry-After, in seconds or as an HTTP date", () => {
  assert.equal(
    retryDelay(0, '5', backoff, () => 0),
    5000,
  );
  const now = Date.parse('2026-11-26T05:00:00Z');
  assert.equal(parseRetryAfter('Thu, 26 Nov 2026 05:00:07 GMT', now), 7000);
  assert.equal(parseRetryAfter('Thu, 26 Nov 2026 04:59:00 GMT', now), 0, 'a date already past: no wait');
  assert.equal(parseRetryAfter('soon', now), null, 'unreadable: ignored');
});

test('only "not now" answers are retried; refusals go to the caller', () => {
  for (const s of [408, 429, 502, 503, 504]) assert.ok(RETRYABLE_STATUSES.has(s), String(s));
  for (const s of [400, 401, 403, 409, 413, 422, 500]) assert.ok(!RETRYABLE_STATUSES.has(s), String(s));
});
