import type { CredentialKind, Scope } from '../auth/scopes.ts';
import type { Credential } from './schemas.ts';
import type { Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';

const q = {
  insert: sqlFile('credentials/insert.sql'),
  listBySite: sqlFile('credentials/list-by-site.sql'),
  revoke: sqlFile('credentials/revoke.sql'),
};

export interface CredentialRow {
  id: string;
  name: string;
  kind: CredentialKind;
  scopes: Scope[];
  prefix: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  requests_per_min: number | null;
}

export function insertCredential(
  db: Db,
  c: {
    siteId: string;
    createdBy: string;
    name: string;
    kind: CredentialKind;
    scopes: readonly string[];
    prefix: string;
    secretHash: Buffer;
    expiresInDays: number;
    /** Null or absent follows the site's limit. */
    requestsPerMinute?: number | null;
  },
): Promise<CredentialRow> {
  return db.one<CredentialRow>(q.insert, { ...c, requestsPerMinute: c.requestsPerMinute ?? null });
}

export function listCredentials(db: Db, siteId: string): Promise<CredentialRow[]> {
  return db.any<CredentialRow>(q.listBySite, { siteId });
}

export function revokeCredential(db: Db, siteId: string, id: string): Promise<CredentialRow | null> {
  return db.oneOrNone<CredentialRow>(q.revoke, { siteId, id });
}

/** Credential metadata as listed (CONTRACT §2); never a secret or its digest. */
export function presentCredential(c: CredentialRow): Credential {
  return {
    id: c.id,
    name: c.name,
    kind: c.kind,
    scopes: c.scopes,
    createdAt: c.created_at.toISOString(),
    expiresAt: c.expires_at.toISOString(),
    prefix: c.prefix,
    revokedAt: c.revoked_at ? c.revoked_at.toISOString() : null,
    requestsPerMinute: c.requests_per_min,
  };
}
