import { randomBytes } from 'node:crypto';
import { hashSecret, sameDigest } from '../auth/secrets.ts';
import type { Db } from '../db/connection.ts';
import { HttpError } from '../errors/http-error.ts';
import { FreshCache } from './fresh-cache.ts';
import { findKeyByHash, type BudgetPeriod, type KeyRow } from './repo.ts';

/**
 * A key that passed authentication. `models` is what it may call: the models it was made
 * with that its group (its account's) still holds; null means every model.
 */
export interface RelayKey {
  id: string;
  accountId: string | null;
  group: string;
  models: ReadonlySet<string> | null;
  /** Requests and tokens per minute: the key's own, else its group's; null leaves it to the server default (rpm) or none (tpm). */
  rpm: number | null;
  tpm: number | null;
  budget: Budget | null;
  /** Epoch ms after which the key is refused; null when it never expires. */
  expiresAt: number | null;
  /** The site the key is used for: its calls are that site's model spend (analytics). */
  siteId: string | null;
}

export interface Budget {
  nanos: number;
  currency: string;
  period: BudgetPeriod;
}

const KEY_PATTERN = /^sk-[A-Za-z0-9_-]{43}$/;
/** Keys whose digest is remembered at most (see `RelayKeys.digests`), as many as rows cached. */
const MAX_REMEMBERED = 10_000;

/** A new relay key: `sk-` and 256 random bits, URL-safe. */
export function newRelayKey(): string {
  return `sk-${randomBytes(32).toString('base64url')}`;
}

/**
 * Checks relay keys. A key's row is cached for at most a second (served while a refresh runs
 * after half a second), so a request normally costs no database round trip, and a key
 * disabled or deleted, or an account moved to another group, takes effect within a second.
 */
export class RelayKeys {
  private readonly cache: FreshCache<string, KeyRow | null>;
  /** The key each cached row stands for, built once per row instead of once per request. */
  private readonly keys = new WeakMap<KeyRow, RelayKey>();
  /**
   * The digests of keys that passed in the last `hardMs`, by the key as presented: in the
   * running front door a SHA-256 cost ~10 µs of every call (a fresh OpenSSL context each
   * time), more than the rest of the key check. In memory only, for as long as a cached row
   * may be served (stale entries are dropped whenever a key is remembered); only keys whose
   * row was found are remembered, so guesses cannot fill it (each guess is hashed, as
   * before). The row cache, by digest, still decides every call.
   */
  private readonly digests = new Map<string, { hex: string; digest: Buffer; at: number }>();
  private readonly hardMs: number;

  constructor(db: Db, opts: { maxAgeMs?: number } = {}) {
    const hardMs = opts.maxAgeMs ?? 1000;
    this.hardMs = hardMs;
    // Unknown digests are cached too, so guessing keys cannot turn into a database load.
    this.cache = new FreshCache((hex) => findKeyByHash(db, Buffer.from(hex, 'hex')), {
      softMs: hardMs / 2,
      hardMs,
      maxEntries: MAX_REMEMBERED,
    });
  }

  /** The key named by an `Authorization: Bearer sk-…` header, or 401 invalid_api_key. */
  async authenticate(authorization: string | undefined): Promise<RelayKey> {
    if (!authorization) throw invalid('You did not provide an API key. Send it as "Authorization: Bearer sk-…".');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw invalid('The Authorization header must be "Bearer sk-…".');
    const presented = m[1]!;
    if (!KEY_PATTERN.test(presented))
      throw invalid(
        `Incorrect API key provided: ${mask(presented)}. Relay keys start with sk- followed by 43 characters.`,
      );
    const now = performance.now();
    let known = this.digests.get(presented);
    if (known && now - known.at >= this.hardMs) known = undefined;
    const digest = known?.digest ?? hashSecret(presented);
    const hex = known?.hex ?? digest.toString('hex');
    const row = await this.cache.get(hex);
    // The lookup went by digest; comparing the stored digest in constant time as well keeps
    // the check honest even if the cache or the index were ever keyed differently.
    if (!row || !sameDigest(row.key_hash, digest)) throw invalid(`Incorrect API key provided: ${mask(presented)}.`);
    if (row.deleted_at) throw invalid(`The API key ${mask(presented)} has been deleted.`);
    if (row.disabled_at) throw invalid(`The API key ${mask(presented)} has been disabled.`);
    let key = this.keys.get(row);
    if (!key) this.keys.set(row, (key = toKey(row)));
    if (key.expiresAt !== null && key.expiresAt <= Date.now())
      throw invalid(`The API key ${mask(presented)} has expired.`);
    if (!known) this.remember(presented, { hex, digest, at: now });
    return key;
  }

  private remember(presented: string, entry: { hex: string; digest: Buffer; at: number }): void {
    // Re-inserted, so the map stays in age order: stale entries are at its front, and go.
    this.digests.delete(presented);
    for (const [stale, e] of this.digests) {
      if (entry.at - e.at < this.hardMs && this.digests.size < MAX_REMEMBERED) break;
      this.digests.delete(stale);
    }
    this.digests.set(presented, entry);
  }
}

function toKey(row: KeyRow): RelayKey {
  return {
    id: row.id,
    accountId: row.account_id,
    group: row.group_name,
    models: allowedModels(row.models, row.group_models),
    rpm: row.rpm ?? row.group_rpm,
    tpm: row.tpm ?? row.group_tpm,
    budget:
      row.budget_nanos === null
        ? null
        : { nanos: row.budget_nanos, currency: row.budget_currency!, period: row.budget_period! },
    expiresAt: row.expires_at?.getTime() ?? null,
    siteId: row.site_id,
  };
}

/** The models both lists allow ('*' allows every model); null when both say '*'. */
export function allowedModels(key: readonly string[], group: readonly string[]): ReadonlySet<string> | null {
  const keyAll = key.includes('*');
  const groupAll = group.includes('*');
  if (keyAll && groupAll) return null;
  if (keyAll) return new Set(group);
  if (groupAll) return new Set(key);
  const inGroup = new Set(group);
  return new Set(key.filter((m) => inGroup.has(m)));
}

function invalid(message: string): HttpError {
  return new HttpError('invalid_api_key', { detail: message });
}

/** Enough of a key to recognise it in an error, never enough to use it. */
function mask(key: string): string {
  return key.length <= 10 ? '***' : `${key.slice(0, 6)}…${key.slice(-4)}`;
}
