/**
 * When the SDK sends a batch again. Only answers that say "not now" are retried — a network
 * error, 408, 429, 502, 503, 504 — because the batch id makes every retry a replay. A 4xx that
 * judges the records (400, 409, 422) would answer the same again, so it goes to the caller.
 */
export interface BackoffOptions {
  /** Delay before the first retry; it doubles with every attempt. */
  baseMs: number;
  /** Ceiling of the exponential delay (a server's Retry-After may ask for longer). */
  maxMs: number;
}

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);

/**
 * The delay before retry number `attempt` (0 for the first): exponential with "equal jitter"
 * (half fixed, half random), so clients that failed together do not come back together, yet
 * never sooner than the server's `Retry-After`.
 */
export function retryDelay(
  attempt: number,
  retryAfter: string | null,
  o: BackoffOptions,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(o.maxMs, o.baseMs * 2 ** attempt);
  const jittered = ceiling / 2 + (random() * ceiling) / 2;
  return Math.max(jittered, parseRetryAfter(retryAfter) ?? 0);
}

/** `Retry-After` (RFC 9110 §10.2.3) as milliseconds from now: delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
