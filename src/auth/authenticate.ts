import type { AppContext } from '../app-context.ts';
import type { Db } from '../db/connection.ts';
import { HttpError } from '../errors/http-error.ts';
import type { RequestContext } from '../http/context.ts';
import { readCookie, SESSION_COOKIE } from './cookies.ts';
import type { Principal } from './principal.ts';
import { findCredentialByHash, findLiveSession, type CredentialAuthRow } from './repo.ts';
import { hashSecret, sameDigest } from './secrets.ts';
import { isScope, type CredentialKind } from './scopes.ts';

const CREDENTIAL_PREFIX: Record<CredentialKind, string> = { read: 'rdr_read_', ingest: 'rdr_ingest_' };

function unauthenticated(detail: string): HttpError {
  return new HttpError('unauthenticated', { detail, headers: { 'www-authenticate': 'Bearer realm="radar"' } });
}

/**
 * Resolves the caller of a business request. A Bearer credential wins over a session
 * cookie, so a script that also carries a browser cookie acts with its credential's
 * narrower rights.
 */
export async function authenticate(ctx: RequestContext, app: AppContext): Promise<Principal> {
  const auth = ctx.headers.authorization;
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) throw unauthenticated('Authorization must be "Bearer <credential>"');
    return authenticateCredential(m[1]!, app);
  }
  const token = readCookie(ctx.headers.cookie, SESSION_COOKIE);
  if (token) {
    const digest = hashSecret(token);
    const row = await findLiveSession(app.db, digest);
    if (!row || !sameDigest(row.token_hash, digest)) throw unauthenticated('session is unknown or expired');
    return { kind: 'session', sessionId: row.id, accountId: row.account_id, admin: row.admin };
  }
  throw unauthenticated('log in or send "Authorization: Bearer rdr_…"');
}

/**
 * Concurrent lookups of one credential share one query: an ingest client sends many requests
 * at once with one credential, and a query each queues on the pool under a burst. A request
 * sees the row as of a query that started at most one query's duration before it arrived, so
 * expiry and revocation still take effect at once. One per front door (AppContext).
 */
export class CredentialLookups {
  private readonly inflight = new Map<string, Promise<CredentialAuthRow | null>>();

  constructor(private readonly db: Db) {}

  find(digest: Buffer): Promise<CredentialAuthRow | null> {
    const key = digest.toString('hex');
    let lookup = this.inflight.get(key);
    if (!lookup) {
      lookup = findCredentialByHash(this.db, digest).finally(() => this.inflight.delete(key));
      this.inflight.set(key, lookup);
    }
    return lookup;
  }
}

async function authenticateCredential(secret: string, app: AppContext): Promise<Principal> {
  const kind = (Object.keys(CREDENTIAL_PREFIX) as CredentialKind[]).find((k) =>
    secret.startsWith(CREDENTIAL_PREFIX[k]),
  );
  if (!kind) throw unauthenticated('credential must start with rdr_read_ or rdr_ingest_');
  const digest = hashSecret(secret);
  const row = await app.credentials.find(digest);
  if (!row || !sameDigest(row.secret_hash, digest) || row.kind !== kind) throw unauthenticated('credential is unknown');
  if (row.revoked_at) throw unauthenticated('credential was revoked');
  if (row.expires_at.getTime() <= Date.now()) throw unauthenticated('credential has expired');
  return {
    kind: 'credential',
    credentialId: row.id,
    accountId: row.account_id,
    siteId: row.site_id,
    credentialKind: row.kind,
    // Stored scopes were validated at creation; parse anyway so a renamed scope cannot grant.
    scopes: new Set(row.scopes.filter(isScope)),
    limits: {
      credentialRequestsPerMin: row.requests_per_min ?? row.credential_requests_per_min,
      ingestRecordsPerMin: row.ingest_records_per_min,
    },
  };
}
