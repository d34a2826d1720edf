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
 * Settles what a lease's calls owe, in one call for many (see `Spending.settle`): charges
 * their tokens to the tokens bucket, and turns their part of the lease's reservation into
 * what they cost (the part only while the lease holds it: a lapsed lease was released
 * whole). With `a[6]` = '1' the lease is also retired: the rest of its reservation and its
 * unused requests are given back. `a` is the settling's eight arguments (see `settleArgs`);
 * a Lua function because the LEASE script settles a spent lease too, before it leases.
 */
const SETTLE_FUNCTION = `
local function settle(tpmKey, spendKey, holdsKey, amountsKey, rpmKey, a)
  local tpm, used = tonumber(a[1]), tonumber(a[2])
  if tpm > 0 and used > 0 then
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    local s = redis.call('HMGET', tpmKey, 'tokens', 'ts')
    local tokens = tonumber(s[1]) or tpm
    local ts = tonumber(s[2]) or now
    tokens = math.min(tpm, tokens + math.max(0, now - ts) * tpm / 60000) - used
    redis.call('HSET', tpmKey, 'tokens', tostring(tokens), 'ts', tostring(now))
    redis.call('PEXPIRE', tpmKey, 61000 + math.ceil(math.max(0, -tokens) * 60000 / tpm))
  end
  if a[5] ~= '' then
    local reserve = tonumber(a[4])
    if reserve > 0 and redis.call('HEXISTS', amountsKey, a[3]) == 1 then
      redis.call('HINCRBY', amountsKey, a[3], -reserve)
      redis.call('HINCRBY', spendKey, 'reserved', -reserve)
    end
    if a[5] ~= '0' then redis.call('HINCRBY', spendKey, 'spent', a[5]) end
  end
  if a[6] == '1' then
    local left = tonumber(redis.call('HGET', amountsKey, a[3]))
    if left then
      redis.call('HDEL', amountsKey, a[3])
      redis.call('ZREM', holdsKey, a[3])
      -- Not with 0: Lua gives -0, which HINCRBY refuses as not an integer.
      if left > 0 then redis.call('HINCRBY', spendKey, 'reserved', -left) end
    end
    local rpm, unused = tonumber(a[7]), tonumber(a[8])
    if rpm > 0 and unused > 0 then
      local s = redis.call('HMGET', rpmKey, 'tokens', 'ts')
      if s[1] then redis.call('HSET', rpmKey, 'tokens', tostring(math.min(rpm, tonumber(s[1]) + unused))) end
    end
  end
end
`;

/**
 * Admission without a Redis round trip per call: a front door takes a **lease** for a key, one
 * Redis script that takes up to LEASE_CALLS requests from the key's requests-per-minute bucket,
 * checks its tokens-per-minute bucket is not empty, and reserves up to LEASE_CALLS calls' worth
 * of its budget, atomically, only when all allow at least one call. Calls are then admitted
 * from the lease in memory, for at most LEASE_MS; a new lease is fetched in the background
 * when one runs low, so a steady key's calls never wait for Redis. A lease is a reservation
 * like any other: spent + every reservation (leases included) never passes the budget, across
 * any number of front doors, so concurrent calls cannot overspend together. Buckets refill
 * continuously (Redis's clock) and hold one minute's worth.
 * The budget is a hash {spent, reserved} per key and period; each lease's remaining amount is
 * in a hash of holds, and its expiry in a sorted set, so the lease of a front door that died
 * is released after HOLD_MS. Answers {status, a, b, c}: 0 leased (a = requests taken, b = nanos
 * reserved, c = requests left), 1 requests (a = ms to wait), 2 tokens (a = ms to wait),
 * 3 budget (a = spent, b = reserved), 4 the period's spend is not in Redis (first call of the
 * period, or Redis lost it): load it and ask again. ARGV[10..17], when ARGV[12] (a hold) is
 * not empty, are the settling of the key's last spent lease (see `settle` above), done first:
 * a hot key's leases then cost one script each instead of two (the lease, then its release).
 */
const LEASE = `${SETTLE_FUNCTION}
if ARGV[12] ~= '' then
  settle(KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[1], {ARGV[10], ARGV[11], ARGV[12], ARGV[13], ARGV[14], ARGV[15], ARGV[16], ARGV[17]})
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rpm, tpm, budget, reserve = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local want, wantNanos = tonumber(ARGV[8]), tonumber(ARGV[9])
local function level(key, cap)
  local s = redis.call('HMGET', key, 'tokens', 'ts')
  local tokens = tonumber(s[1]) or cap
  local ts = tonumber(s[2]) or now
  return math.min(cap, tokens + math.max(0, now - ts) * cap / 60000)
end
local requests, taken = 0, want
if rpm > 0 then
  requests = level(KEYS[1], rpm)
  if requests < 1 then return {1, math.ceil((1 - requests) * 60000 / rpm), 0, 0} end
  taken = math.min(want, math.floor(requests))
end
if tpm > 0 then
  local tokens = level(KEYS[2], tpm)
  if tokens < 1 then return {2, math.ceil((1 - tokens) * 60000 / tpm), 0, 0} end
end
local granted = 0
if budget > 0 then
  local lapsed = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now)
  if #lapsed > 0 then
    local freed = 0
    for _, m in ipairs(lapsed) do freed = freed + (tonumber(redis.call('HGET', KEYS[5], m)) or 0) end
    redis.call('HDEL', KEYS[5], unpack(lapsed))
    redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
    if freed > 0 then redis.call('HINCRBY', KEYS[3], 'reserved', -freed) end
  end
  local s = redis.call('HMGET', KEYS[3], 'spent', 'reserved')
  if not s[1] then return {4, 0, 0, 0} end
  local spent, reserved = tonumber(s[1]), tonumber(s[2]) or 0
  local room = budget - spent - reserved
  if room < reserve then return {3, spent, reserved, 0} end
  granted = math.min(room, math.max(reserve, wantNanos))
  if granted > 0 then
    redis.call('HINCRBY', KEYS[3], 'reserved', granted)
    redis.call('HSET', KEYS[5], ARGV[5], granted)
    redis.call('ZADD', KEYS[4], now + tonumber(ARGV[6]), ARGV[5])
  end
  if tonumber(ARGV[7]) > 0 then
    redis.call('PEXPIRE', KEYS[3], ARGV[7])
    redis.call('PEXPIRE', KEYS[4], ARGV[7])
    redis.call('PEXPIRE', KEYS[5], ARGV[7])
  end
end
if rpm > 0 then
  redis.call('HSET', KEYS[1], 'tokens', tostring(requests - taken), 'ts', tostring(now))
  redis.call('PEXPIRE', KEYS[1], 61000)
end
return {0, taken, granted, math.floor(requests - taken)}
`;

/** One lease's settling alone (KEYS: tpm, spend, holds, amounts, rpm). */
const SETTLE = `${SETTLE_FUNCTION}
settle(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV)
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
/** Calls one lease admits at most: the requests it takes and the budget it reserves. */
export const LEASE_CALLS = 16;
/** How long a lease admits calls: limits and budget changes reach a front door within this. */
export const LEASE_MS = 1000;
/** Longest the settling of a call waits in memory for others to go with it to Redis. */
const SETTLE_MS = 100;

type Scripts = Redis & {
  relayLease(
    rpm: string,
    tpm: string,
    spend: string,
    holds: string,
    amounts: string,
    ...argv: (string | number)[]
  ): Promise<[number, number, number, number]>;
  relaySettle(
    tpm: string,
    spend: string,
    holds: string,
    amounts: string,
    rpm: string,
    ...argv: (string | number)[]
  ): Promise<number>;
  relaySeed(spend: string, spent: number, ttlMs: number): Promise<number>;
};

/** What a front door holds of a key's requests and budget (see LEASE). */
class Lease {
  inflight = 0;
  retired = false;
  born = performance.now();
  /** What it reserved of the budget when taken. */
  readonly granted: number;
  /** What its settled calls owe Redis until the next flush (see `Spending.settle`): tokens, reservations, cost. */
  owedTokens = 0;
  owedReserved = 0;
  owedCost = 0;
  /** The key's tokens per minute as of its last settled call. */
  tpm = 0;

  constructor(
    readonly hold: string,
    readonly spendKey: string,
    /** Epoch ms its budget period ends: past it, calls go to the next period's counter. */
    readonly periodEnd: number,
    /** Requests it may still admit (rpm > 0). */
    public requests: number,
    /** Nanos it may still reserve (with a budget). */
    public nanos: number,
    /** Requests left in the key's bucket when it was taken, for the RateLimit headers. */
    readonly bucketLeft: number,
    readonly rpm: number,
    readonly budgeted: boolean,
  ) {
    this.granted = nanos;
  }

  fresh(now: number): boolean {
    return !this.retired && now - this.born < LEASE_MS;
  }

  fits(reserve: number): boolean {
    return (this.rpm <= 0 || this.requests >= 1) && (!this.budgeted || this.nanos >= reserve);
  }

  /** Still admitting calls, or still with calls in flight: not to be released yet. */
  inUse(now: number): boolean {
    return this.inflight > 0 || (this.fresh(now) && this.fits(0));
  }

  /** True past half its life or with less than half of its requests or nanos left: time to fetch the next. */
  low(now: number): boolean {
    return (
      now - this.born > LEASE_MS / 2 ||
      (this.rpm > 0 && this.requests < LEASE_CALLS / 2) ||
      (this.budgeted && this.nanos * 2 < this.granted)
    );
  }
}

/** A key's leases in this front door, and the lease being fetched. */
interface KeyLeases {
  leases: Lease[];
  pending: Promise<HttpError | null> | null;
}

/** What an admitted call holds until it is settled. */
export interface Ticket {
  /** RateLimit-* headers of the requests bucket, for the answer. */
  headers: Record<string, string>;
  keyId: string;
  tpm: number;
  /** null when Redis could not be reached and the call went through unlimited. */
  lease: Lease | null;
  reserved: number;
}

export interface Period {
  /** Part of the Redis key: one budget counter per period. */
  id: string;
  start: Date;
  /** Epoch ms the next period starts (Infinity for `total`). */
  end: number;
  /** How long the counter is worth keeping (0: for ever). */
  ttlMs: number;
}

/** The budget period `at` falls in. Day and month are UTC's. */
export function periodOf(period: BudgetPeriod, at: Date): Period {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  if (period === 'total') return { id: 'total', start: new Date(0), end: Number.POSITIVE_INFINITY, ttlMs: 0 };
  const start = period === 'day' ? new Date(Date.UTC(y, m, at.getUTCDate())) : new Date(Date.UTC(y, m, 1));
  const end = period === 'day' ? new Date(Date.UTC(y, m, at.getUTCDate() + 1)) : new Date(Date.UTC(y, m + 1, 1));
  // Kept a day past its end, for calls that began in it and settle after midnight.
  return {
    id: `${period}-${start.toISOString().slice(0, period === 'day' ? 10 : 7)}`,
    start,
    end: end.getTime(),
    ttlMs: end.getTime() - at.getTime() + 86_400_000,
  };
}

export class Spending {
  private readonly redis: Scripts;
  private holds = 0;
  private readonly keys = new Map<string, KeyLeases>();
  /** Leases whose settled calls owe Redis, for the next flush. */
  private owing = new Map<Lease, string>();
  /**
   * Per key, its last spent lease, whose release waits to go in the key's next LEASE script
   * (a hot key fetches its next lease within a few calls) or with the next flush, whichever
   * comes first: the reservation it still holds is given back up to SETTLE_MS later, as the
   * settling of live leases is.
   */
  private unreleased = new Map<string, Lease>();
  private flushTimer: NodeJS.Timeout | null = null;
  private readonly flushOwed = this.flushOwedNow.bind(this);

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly db: Db,
    private readonly log: Logger,
  ) {
    if (!('relayLease' in redis)) {
      redis.defineCommand('relayLease', { numberOfKeys: 5, lua: LEASE });
      redis.defineCommand('relaySettle', { numberOfKeys: 5, lua: SETTLE });
      redis.defineCommand('relaySeed', { numberOfKeys: 1, lua: SEED });
    }
    this.redis = redis as Scripts;
  }

  /**
   * Admits a call of `key` that may cost `reserve` nanos of its budget, or throws 429
   * (`rate_limited` with Retry-After for the limits, `insufficient_quota` for the budget).
   * Served from a lease in memory when one fits; else waits for one from Redis. When Redis
   * cannot be reached a call without a budget goes through unlimited (a limiter outage must
   * not become a relay outage); one with a budget is 503, as its spend cannot be known.
   */
  async admit(key: RelayKey, rpm: number, reserve: number, now = new Date()): Promise<Ticket> {
    let state = this.keys.get(key.id);
    if (!state) {
      state = { leases: [], pending: null };
      this.keys.set(key.id, state);
    }
    for (;;) {
      const ticket = this.take(state, key, rpm, reserve);
      if (ticket) {
        // Fetch the next lease before this one runs out, so no call waits for it.
        if (!state.pending && !hasRoom(state, performance.now())) void this.fetch(state, key, rpm, reserve, now);
        return ticket;
      }
      const refused = await (state.pending ?? this.fetch(state, key, rpm, reserve, now));
      if (refused) throw refused;
    }
  }

  /** A ticket from a fresh lease that fits the call, or null. */
  private take(state: KeyLeases, key: RelayKey, rpm: number, reserve: number): Ticket | null {
    const now = performance.now();
    const wall = Date.now();
    for (const lease of state.leases) {
      if (wall >= lease.periodEnd || lease.rpm !== rpm || lease.budgeted !== (key.budget !== null)) continue;
      if (!lease.fresh(now) || !lease.fits(reserve)) continue;
      lease.requests--;
      lease.nanos -= reserve;
      lease.inflight++;
      const headers: Record<string, string> =
        rpm > 0 && lease.hold !== ''
          ? {
              'ratelimit-limit': String(rpm),
              'ratelimit-remaining': String(lease.bucketLeft + lease.requests),
              'ratelimit-reset': String(Math.ceil(((rpm - lease.bucketLeft - lease.requests) * 60) / rpm)),
            }
          : NO_HEADERS;
      return { headers, keyId: key.id, tpm: key.tpm ?? 0, lease, reserved: reserve };
    }
    return null;
  }

  /** Fetches a lease for `key` into `state`; resolves to the refusal, or null once there is one (or none is needed). */
  private fetch(state: KeyLeases, key: RelayKey, rpm: number, reserve: number, now: Date): Promise<HttpError | null> {
    const pending = this.lease(key, rpm, reserve, now).then(
      (lease) => {
        state.leases.push(lease ?? this.unlimited(rpm));
        // Released once stale, also when no further call of the key comes to do it.
        setTimeout(() => this.retireSpent(key.id), LEASE_MS + 10).unref();
        return null;
      },
      (err: unknown) => {
        if (err instanceof HttpError) return err;
        this.log.warn({ err, keyId: key.id }, 'relay lease failed');
        return unavailable('the budget store (Redis)', err);
      },
    );
    state.pending = pending;
    void pending.then(() => {
      if (state.pending === pending) state.pending = null;
    });
    return pending;
  }

  /**
   * One Redis round trip: a lease, or null when Redis cannot be reached and the key has no
   * budget (then the call goes through unlimited, logged); throws the 429 or 503 otherwise.
   */
  private async lease(key: RelayKey, rpm: number, reserve: number, now: Date): Promise<Lease | null> {
    const keys = this.keysOf(key.id);
    const budget = key.budget;
    const period = budget ? periodOf(budget.period, now) : null;
    const spendKey = this.spendKeyOf(key, now);
    const hold = `${process.pid}.${++this.holds}.${now.getTime()}`;
    // A spent lease of another budget period keeps to the flush: its counters are other keys.
    const spent = this.unreleased.get(key.id);
    let release = spent && spent.spendKey === spendKey ? settleArgs(spent, true) : NO_SETTLING;
    if (release !== NO_SETTLING) this.unreleased.delete(key.id);
    try {
      for (;;) {
        const [status, a, b, c] = await this.redis.relayLease(
          `${keys}:rpm`,
          `${keys}:tpm`,
          spendKey,
          `${spendKey}:holds`,
          `${spendKey}:amounts`,
          rpm,
          key.tpm ?? 0,
          budget?.nanos ?? 0,
          reserve,
          hold,
          HOLD_MS,
          period?.ttlMs ?? 0,
          LEASE_CALLS,
          reserve * LEASE_CALLS,
          ...release,
        );
        // Settled by the script whatever it answered: not to be sent again with a retry.
        release = NO_SETTLING;
        if (status === 0)
          return new Lease(hold, spendKey, period?.end ?? Number.POSITIVE_INFINITY, a, b, c, rpm, budget !== null);
        if (status === 1 || status === 2) throw limited(status === 1 ? `${rpm} requests` : `${key.tpm} tokens`, a, rpm);
        if (status === 3) throw overBudget(budget!, a, b, reserve);
        await this.redis.relaySeed(
          spendKey,
          await spendSince(this.db, key.id, budget!.currency, period!.start),
          period!.ttlMs,
        );
      }
    } catch (err) {
      // As a failed SETTLE: its holds lapse after HOLD_MS.
      if (release !== NO_SETTLING) this.log.warn({ err, keyId: key.id }, 'relay spend could not be settled');
      if (!isConnectivityError(err)) throw err;
      if (budget) throw unavailable('the budget store (Redis)', err);
      this.log.warn({ err, keyId: key.id }, 'relay limits unavailable; letting the call through');
      return null;
    }
  }

  /** A lease without limits, for a key without a budget while Redis cannot be reached. */
  private unlimited(rpm: number): Lease {
    return new Lease('', '', Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, 0, 0, rpm, false);
  }

  /**
   * Ends an admitted call with the tokens it used and the nanos it cost (null when unknown:
   * then it is charged what it reserved). Off the answer's path, and not one Redis call per
   * call: what the calls of a lease owe is summed in memory and sent with the lease's release
   * (in the key's next LEASE script, or alone after SETTLE_MS), or after SETTLE_MS while the
   * lease lives on. Until then their reservations stay
   * held, so the budget still holds; what a crash loses is the settling not sent yet, at most
   * SETTLE_MS of it (the holds it leaves lapse after HOLD_MS, as they always did). Never
   * throws; Redis errors are logged.
   */
  settle(ticket: Ticket, tokens: number, cost: number | null): void {
    const lease = ticket.lease;
    if (!lease) return;
    lease.inflight--;
    if (lease.hold !== '' && (ticket.tpm > 0 || lease.budgeted)) {
      lease.tpm = ticket.tpm;
      if (ticket.tpm > 0) lease.owedTokens += tokens;
      if (lease.budgeted) {
        lease.owedReserved += ticket.reserved;
        lease.owedCost += cost ?? ticket.reserved;
      }
      this.owing.set(lease, ticket.keyId);
      this.flushTimer ??= setTimeout(this.flushOwed, SETTLE_MS).unref();
    }
    this.retireSpent(ticket.keyId);
  }

  /** Settles what every lease owes, and releases the spent ones no LEASE script took along. */
  private flushOwedNow(): void {
    this.flushTimer = null;
    const unreleased = this.unreleased;
    this.unreleased = new Map();
    for (const [keyId, lease] of unreleased) this.send(lease, keyId, true);
    const owing = this.owing;
    this.owing = new Map();
    // A lease released since owes nothing: it was settled as it was released.
    for (const [lease, keyId] of owing) this.send(lease, keyId, false);
  }

  /** Holds the release of a spent lease for the key's next LEASE script (see `unreleased`). */
  private releaseLater(lease: Lease, keyId: string): void {
    const earlier = this.unreleased.get(keyId);
    if (earlier) this.send(earlier, keyId, true);
    this.unreleased.set(keyId, lease);
    this.flushTimer ??= setTimeout(this.flushOwed, SETTLE_MS).unref();
  }

  /** One SETTLE script for `lease`: what its calls owe, and with `release` the lease itself. */
  private send(lease: Lease, keyId: string, release: boolean): void {
    const owes = lease.owedTokens > 0 || lease.owedReserved > 0 || lease.owedCost > 0;
    if (!owes && !release) return;
    const keys = this.keysOf(keyId);
    this.redis
      .relaySettle(
        `${keys}:tpm`,
        lease.spendKey,
        `${lease.spendKey}:holds`,
        `${lease.spendKey}:amounts`,
        `${keys}:rpm`,
        ...settleArgs(lease, release),
      )
      .catch((err: unknown) => this.log.warn({ err, keyId }, 'relay spend could not be settled'));
  }

  /** Releases the key's leases that admit no more and have no call in flight, settling what they owe. */
  private retireSpent(keyId: string): void {
    const state = this.keys.get(keyId);
    if (!state) return;
    const now = performance.now();
    // Most calls find nothing to release: the list is only rebuilt when there is.
    if (state.leases.some((lease) => !lease.inUse(now)))
      state.leases = state.leases.filter((lease) => {
        if (lease.inUse(now)) return true;
        lease.retired = true;
        if (lease.hold !== '') this.releaseLater(lease, keyId);
        return false;
      });
    if (state.leases.length === 0 && !state.pending) this.keys.delete(keyId);
  }

  /** Settles everything and releases every lease without a call in flight (at shutdown: what it held is free for other front doors at once). */
  async close(): Promise<void> {
    // A lease still being fetched (taken ahead of need) is released with the rest, not held till it lapses.
    await Promise.all([...this.keys.values()].map((state) => state.pending));
    for (const [keyId, state] of this.keys) {
      for (const lease of state.leases) lease.born = Number.NEGATIVE_INFINITY;
      this.retireSpent(keyId);
    }
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushOwedNow();
    await this.redis.ping().catch(() => undefined);
  }

  private spendKeyOf(key: RelayKey, now: Date): string {
    const keys = this.keysOf(key.id);
    return key.budget ? `${keys}:spend:${periodOf(key.budget.period, now).id}` : `${keys}:spend`;
  }

  private keysOf(keyId: string): string {
    // One hash tag per key: every key a script touches lives in one Redis Cluster slot.
    return `${this.prefix}:relay:{${keyId}}`;
  }
}

const NO_HEADERS: Record<string, string> = {};

/** The settling arguments for no lease (LEASE's ARGV[10..17] when it has none to settle). */
const NO_SETTLING: readonly (string | number)[] = [0, 0, '', 0, '', 0, 0, 0];

/** SETTLE's arguments for what `lease` owes, and with `release` its release; what it owed is then counted as sent. */
function settleArgs(lease: Lease, release: boolean): (string | number)[] {
  const args = [
    lease.tpm,
    lease.owedTokens,
    lease.hold,
    lease.owedReserved,
    lease.budgeted ? lease.owedCost : '',
    release ? 1 : 0,
    lease.rpm,
    lease.rpm > 0 ? lease.requests : 0,
  ];
  lease.owedTokens = lease.owedReserved = lease.owedCost = 0;
  return args;
}

/** True when a lease of the key still admits calls and is not running low. */
function hasRoom(state: KeyLeases, now: number): boolean {
  return state.leases.some((l) => l.fresh(now) && l.fits(0) && !l.low(now));
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

/** The fields a request caps its output with, the first one set winning. */
const OUTPUT_CAPS = ['max_output_tokens', 'max_completion_tokens', 'max_tokens'] as const;

/**
 * Tokens a call may use at most, as far as the request tells: its body's byte count for the
 * input (a token is at least a byte of text, so this is never below the real count, though
 * up to ~4 times above it for English), and its own output cap or DEFAULT_OUTPUT_RESERVE.
 */
export function estimateOf(request: RelayRequest, bodyBytes: number): { input: number; output: number } {
  if (request.protocol === 'embeddings') return { input: bodyBytes, output: 0 };
  const b = request.body as Record<string, unknown>;
  for (const field of OUTPUT_CAPS) {
    const v = b[field];
    if (Number.isInteger(v) && (v as number) > 0) return { input: bodyBytes, output: v as number };
  }
  return { input: bodyBytes, output: DEFAULT_OUTPUT_RESERVE };
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
