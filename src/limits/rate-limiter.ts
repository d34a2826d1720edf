import type { Redis } from 'ioredis';
import { isConnectivityError } from '../errors/connectivity.ts';
import { HttpError } from '../errors/http-error.ts';
import type { Logger } from '../log.ts';

/**
 * Token bucket, refilled continuously, evaluated atomically in Redis so every front door
 * on every host draws from the same bucket. Redis's own clock is used, not the caller's, so
 * hosts with skewed clocks agree. Returns {allowed, tokens left, ms until `cost` fits}.
 */
const TAKE = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1]) or capacity
local ts = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - ts) * per_ms)
local allowed = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / per_ms) + 1000)
local wait = 0
if allowed == 0 then wait = math.ceil((cost - tokens) / per_ms) end
return {allowed, math.floor(tokens), wait}
`;

export interface Limit {
  /** Sustained rate; the bucket also holds this many, so a burst of one minute's worth passes. */
  perMinute: number;
}

export interface Decision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until this request's cost would fit (0 when allowed). */
  retryAfterSeconds: number;
}

type WithTake = Redis & {
  radarTake(key: string, capacity: number, perMs: number, cost: number): Promise<[number, number, number]>;
};

export class RateLimiter {
  private readonly redis: WithTake;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly log: Logger,
  ) {
    if (!('radarTake' in redis)) redis.defineCommand('radarTake', { numberOfKeys: 1, lua: TAKE });
    this.redis = redis as WithTake;
  }

  /**
   * Takes `cost` tokens from bucket `key`. A limit of 0 means unlimited. When Redis is
   * unreachable the request is let through: a limiter outage must not become an API outage
   * (the request itself will meet Redis again if it needs it, and answer 503 there).
   */
  async take(key: string, limit: Limit, cost = 1): Promise<Decision | null> {
    if (limit.perMinute <= 0) return null;
    const capacity = limit.perMinute;
    const perMs = limit.perMinute / 60_000;
    try {
      const [allowed, remaining, waitMs] = await this.redis.radarTake(
        `${this.prefix}:ratelimit:${key}`,
        capacity,
        perMs,
        cost,
      );
      return {
        allowed: allowed === 1,
        limit: capacity,
        remaining,
        resetSeconds: Math.ceil((capacity - remaining) / perMs / 1000),
        retryAfterSeconds: allowed === 1 ? 0 : Math.max(1, Math.ceil(waitMs / 1000)),
      };
    } catch (err) {
      if (!isConnectivityError(err)) throw err;
      this.log.warn({ err, key }, 'rate limiter unavailable; letting the request through');
      return null;
    }
  }

  /** Takes tokens and throws 429 `rate_limited` when the bucket is empty. */
  async enforce(key: string, limit: Limit, what: string, cost = 1): Promise<Record<string, string>> {
    const d = await this.take(key, limit, cost);
    if (!d) return {};
    const headers = rateLimitHeaders(d);
    if (!d.allowed) {
      throw new HttpError('rate_limited', {
        detail: `${what} allows ${d.limit} per minute; retry in ${d.retryAfterSeconds} s`,
        headers: { ...headers, 'retry-after': String(d.retryAfterSeconds) },
      });
    }
    return headers;
  }
}

/** The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers), in their widely deployed form. */
export function rateLimitHeaders(d: Decision): Record<string, string> {
  return {
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(d.resetSeconds),
  };
}
