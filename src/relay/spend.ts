import type { Redis } from 'ioredis';
import type { Db } from '../db/connection.ts';
import { isConnectivityError } from '../errors/connectivity.ts';
import { HttpError, unavailable } from '../errors/http-error.ts';
import type { Logger } from '../log.ts';
import type { Budget, RelayKey } from './keys.ts';
import type { Model } from './directory.ts';
import { fromNanos, priceAt } from './money.ts';
import type { RelayRequest } from './request.ts';
import type { BudgetPeriod } from './repo.ts';
import { spendSince } from './repo.ts';

/**
 * One Redis round trip admits a call: the key's requests-per-minute bucket, its
 * tokens-per-minute bucket and its budget, checked together and taken only when all allow
 * it, atomically, so concurrent calls on any number of front doors cannot together pass
 * a limit or overspend. Buckets refill continuously (Redis's clock) and hold one minute's
 * worth. The tokens bucket is checked not to be empty, and charged the call's real tokens
 * when it ends (it may go below zero, and then refuses until it has refilled).
 * The budget is a hash {spent, reserved} per key and period; a call reserves its estimated
 * cost before it is forwarded and refused when spent + reserved + estimate would pass the
 * budget. Each reservation is also a member of a sorted set scored by when it lapses, so
 * the hold of a front door that died mid-call is released after HOLD_MS, not kept forever.
 * Answers {status, a, b}: 0 admitted (a = requests left), 1 requests (a = ms to wait),
 * 2 tokens (a = ms to wait), 3 budget (a = spent, b = reserved), 4 the period's spend is
 * not in Redis (first call of the period, or Redis lost it): load it and ask again.
 */
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rpm, tpm, budget, reserve = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local function level(key, cap)
  local s = redis.call('HMGET', key, 'tokens', 'ts')
  local tokens = tonumber(s[1]) or cap
  local ts = tonumber(s[2]) or now
  return math.min(cap, tokens + math.max(0, now - ts) * cap / 60000)
end
local requests = 0
if rpm > 0 then
  requests = level(KEYS[1], rpm)
  if requests < 1 then return {1, math.ceil((1 - requests) * 60000 / rpm), 0} end
end
if tpm > 0 then
  local tokens = level(KEYS[2], tpm)
  if tokens < 1 then return {2, math.ceil((1 - tokens) * 60000 / tpm), 0} end
end
if budget > 0 then
  local lapsed = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now)
  if #lapsed > 0 then
    local freed = 0
    for _, m in ipairs(lapsed) do freed = freed + tonumber(string.match(m, ':(%d+)$')) end
    redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
    redis.call('HINCRBY', KEYS[3], 'reserved', -freed)
  end
  local s = redis.call('HMGET', KEYS[3], 'spent', 'reserved')
  if not s[1] then return {4, 0, 0} end
  local spent, reserved = tonumber(s[1]), tonumber(s[2]) or 0
  if spent + reserved + reserve > budget then return {3, spent, reserved} end
  if reserve > 0 then
    redis.call('HINCRBY', KEYS[3], 'reserved', reserve)
    redis.call('ZADD', KEYS[4], now + tonumber(ARGV[6]), ARGV[5] .. ':' .. reserve)
  end
  if tonumber(ARGV[7]) > 0 then
    redis.call('PEXPIRE', KEYS[3], ARGV[7])
    redis.call('PEXPIRE', KEYS[4], ARGV[7])
  end
end
if rpm > 0 then
  redis.call('HSET', KEYS[1], 'tokens', tostring(requests - 1), 'ts', tostring(now))
  redis.call('PEXPIRE', KEYS[1], 61000)
end
return {0, math.floor(requests - 1), 0}
`;

/** Ends a call: charges its tokens to the tokens bucket, and turns its reservation into what it cost. */
const SETTLE = `
local tpm, used = tonumber(ARGV[1]), tonumber(ARGV[2])
if tpm > 0 and used > 0 then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local s = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
  local tokens = tonumber(s[1]) or tpm
  local ts = tonumber(s[2]) or now
  tokens = math.min(tpm, tokens + math.max(0, now - ts) * tpm / 60000) - used
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
  redis.call('PEXPIRE', KEYS[1], 61000 + math.ceil(math.max(0, -tokens) * 60000 / tpm))
end
if ARGV[3] ~= '' then
  if redis.call('ZREM', KEYS[3], ARGV[3]) == 1 then redis.call('HINCRBY', KEYS[2], 'reserved', -tonumber(ARGV[4])) end
  redis.call('HINCRBY', KEYS[2], 'spent', ARGV[5])
end
return 0
`;

/** Seeds a period's spend from PostgreSQL unless a concurrent call already did. */
const SEED = `
redis.call('HSETNX', KEYS[1], 'spent', ARGV[1])
if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

// A reservation lapses after this long without being settled (a front door that died
// mid-call); a call streaming longer than this no longer holds its share of the budget.
const HOLD_MS = 15 * 60_000;

type Scripts = Redis & {
  relayAdmit(
    rpm: string,
    tpm: string,
    spend: string,
    holds: string,
    ...argv: (string | number)[]
  ): Promise<[number, number, number]>;
  relaySettle(tpm: string, spend: string, holds: string, ...argv: (string | number)[]): Promise<number>;
  relaySeed(spend: string, spent: number, ttlMs: number): Promise<number>;
};

/** What an admitted call holds until it is settled. */
export interface Ticket {
  /** RateLimit-* headers of the requests bucket, for the answer. */
  headers: Record<string, string>;
  keyId: string;
  tpm: number;
  budget: { spendKey: string; holdsKey: string; hold: string; reserved: number } | null;
}

export interface Period {
  /** Part of the Redis key: one budget counter per period. */
  id: string;
  start: Date;
  /** How long the counter is worth keeping (0: for ever). */
  ttlMs: number;
}

/** The budget period `at` falls in. Day and month are UTC's. */
export function periodOf(period: BudgetPeriod, at: Date): Period {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  if (period === 'total') return { id: 'total', start: new Date(0), ttlMs: 0 };
  const start = period === 'day' ? new Date(Date.UTC(y, m, at.getUTCDate())) : new Date(Date.UTC(y, m, 1));
  const end = period === 'day' ? new Date(Date.UTC(y, m, at.getUTCDate() + 1)) : new Date(Date.UTC(y, m + 1, 1));
  // Kept a day past its end, for calls that began in it and settle after midnight.
  return {
    id: `${period}-${start.toISOString().slice(0, period === 'day' ? 10 : 7)}`,
    start,
    ttlMs: end.getTime() - at.getTime() + 86_400_000,
  };
}

export class Spending {
  private readonly redis: Scripts;
  private holds = 0;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly db: Db,
    private readonly log: Logger,
  ) {
    if (!('relayAdmit' in redis)) {
      redis.defineCommand('relayAdmit', { numberOfKeys: 4, lua: ADMIT });
      redis.defineCommand('relaySettle', { numberOfKeys: 3, lua: SETTLE });
      redis.defineCommand('relaySeed', { numberOfKeys: 1, lua: SEED });
    }
    this.redis = redis as Scripts;
  }

  /**
   * Admits a call of `key` that may cost `reserve` nanos of its budget, or throws 429
   * (`rate_limited` with Retry-After for the limits, `insufficient_quota` for the budget).
   * When Redis cannot be reached a call without a budget goes through unlimited (a limiter
   * outage must not become a relay outage); one with a budget is 503, as its spend cannot
   * be known.
   */
  async admit(key: RelayKey, rpm: number, reserve: number, now = new Date()): Promise<Ticket> {
    const keys = this.keysOf(key.id);
    const tpm = key.tpm ?? 0;
    const budget = key.budget;
    const period = budget ? periodOf(budget.period, now) : null;
    const spendKey = period ? `${keys}:spend:${period.id}` : `${keys}:spend`;
    const holdsKey = `${spendKey}:holds`;
    const hold = `${process.pid}.${++this.holds}.${now.getTime()}`;
    try {
      for (;;) {
        const [status, a, b] = await this.redis.relayAdmit(
          `${keys}:rpm`,
          `${keys}:tpm`,
          spendKey,
          holdsKey,
          rpm,
          tpm,
          budget?.nanos ?? 0,
          reserve,
          hold,
          HOLD_MS,
          period?.ttlMs ?? 0,
        );
        if (status === 0) {
          const headers: Record<string, string> =
            rpm > 0
              ? {
                  'ratelimit-limit': String(rpm),
                  'ratelimit-remaining': String(a),
                  'ratelimit-reset': String(Math.ceil(((rpm - a) * 60) / rpm)),
                }
              : {};
          return {
            headers,
            keyId: key.id,
            tpm,
            budget: budget
              ? { spendKey, holdsKey, hold: reserve > 0 ? `${hold}:${reserve}` : '', reserved: reserve }
              : null,
          };
        }
        if (status === 1 || status === 2) throw limited(status === 1 ? `${rpm} requests` : `${tpm} tokens`, a, rpm);
        if (status === 3) throw overBudget(budget!, a, b, reserve);
        await this.redis.relaySeed(
          spendKey,
          await spendSince(this.db, key.id, budget!.currency, period!.start),
          period!.ttlMs,
        );
      }
    } catch (err) {
      if (!isConnectivityError(err)) throw err;
      if (budget) throw unavailable('the budget store (Redis)', err);
      this.log.warn({ err, keyId: key.id }, 'relay limits unavailable; letting the call through');
      return { headers: {}, keyId: key.id, tpm: 0, budget: null };
    }
  }

  /**
   * Ends an admitted call with the tokens it used and the nanos it cost (null when unknown:
   * then it is charged what it reserved). Off the answer's path: never throws, logs.
   */
  settle(ticket: Ticket, tokens: number, cost: number | null): Promise<void> {
    const b = ticket.budget;
    if (ticket.tpm <= 0 && !b) return Promise.resolve();
    const keys = this.keysOf(ticket.keyId);
    return this.redis
      .relaySettle(
        `${keys}:tpm`,
        b?.spendKey ?? `${keys}:spend`,
        b?.holdsKey ?? `${keys}:spend:holds`,
        ticket.tpm,
        tokens,
        b ? b.hold || 'none' : '',
        b?.reserved ?? 0,
        b ? (cost ?? b.reserved) : 0,
      )
      .then(
        () => undefined,
        (err: unknown) => this.log.warn({ err, keyId: ticket.keyId }, 'relay spend could not be settled'),
      );
  }

  private keysOf(keyId: string): string {
    // One hash tag per key: every key a script touches lives in one Redis Cluster slot.
    return `${this.prefix}:relay:{${keyId}}`;
  }
}

function limited(what: string, waitMs: number, rpm: number): HttpError {
  const retry = Math.max(1, Math.ceil(waitMs / 1000));
  return new HttpError('rate_limited', {
    detail: `This API key allows ${what} per minute; retry in ${retry} s.`,
    headers: { 'retry-after': String(retry), ...(rpm > 0 ? { 'ratelimit-limit': String(rpm) } : {}) },
  });
}

function overBudget(budget: Budget, spent: number, reserved: number, reserve: number): HttpError {
  const per = budget.period === 'total' ? '' : ` per ${budget.period}`;
  return new HttpError('insufficient_quota', {
    detail: `This API key's budget of ${fromNanos(budget.nanos)} ${budget.currency}${per} is used up: ${fromNanos(spent)} spent and ${fromNanos(reserved)} held by calls in flight, and this call may cost up to ${fromNanos(reserve)}.`,
  });
}

/**
 * Output tokens reserved for a call that sets no cap on them. A longer answer costs more
 * than was reserved, and its key can then overspend by the difference once.
 */
export const DEFAULT_OUTPUT_RESERVE = 4096;

/**
 * Tokens a call may use at most, as far as the request tells: its body's byte count for the
 * input (a token is at least a byte of text, so this is never below the real count, though
 * up to ~4 times above it for English), and its own output cap or DEFAULT_OUTPUT_RESERVE.
 */
export function estimateOf(request: RelayRequest, bodyBytes: number): { input: number; output: number } {
  if (request.protocol === 'embeddings') return { input: bodyBytes, output: 0 };
  const b = request.body as Record<string, unknown>;
  const cap = [b.max_output_tokens, b.max_completion_tokens, b.max_tokens].find(
    (v) => Number.isInteger(v) && (v as number) > 0,
  ) as number | undefined;
  return { input: bodyBytes, output: cap ?? DEFAULT_OUTPUT_RESERVE };
}

/**
 * Nanos of the key's budget a call reserves: the estimate at the price in force, in the
 * budget's currency. A key with a budget may call a model without such a price only when
 * the admin allowed unpriced calls for it (and then reserves nothing): 403 model_unpriced.
 */
export function reservationFor(
  key: RelayKey,
  model: Model,
  at: number,
  estimate: { input: number; output: number },
): number {
  if (!key.budget) return 0;
  const price = priceAt(model.prices, at);
  if (price && price.currency === key.budget.currency) {
    return Number(
      (BigInt(estimate.input) * BigInt(price.input) + BigInt(estimate.output) * BigInt(price.output) + 999_999n) /
        1_000_000n,
    );
  }
  if (!price && model.allowUnpriced) return 0;
  throw new HttpError('model_unpriced', {
    detail: price
      ? `The model '${model.id}' is priced in ${price.currency}, and this API key's budget is in ${key.budget.currency}.`
      : `The model '${model.id}' has no price, and this API key has a budget.`,
    param: 'model',
  });
}
