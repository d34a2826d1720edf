import type { Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';
import type { CredentialKind } from './scopes.ts';

const q = {
  findSession: sqlFile('sessions/find-live.sql'),
  insertSession: sqlFile('sessions/insert.sql'),
  deleteSession: sqlFile('sessions/delete.sql'),
  findCredential: sqlFile('credentials/find-by-hash.sql'),
};

export interface SessionRow {
  id: string;
  token_hash: Buffer;
  account_id: string;
  admin: boolean;
}

export interface CredentialAuthRow {
  id: string;
  site_id: string;
  account_id: string;
  kind: CredentialKind;
  scopes: string[];
  secret_hash: Buffer;
  expires_at: Date;
  revoked_at: Date | null;
  /** The site's limits; null follows the server default. */
  ingest_records_per_min: number | null;
  credential_requests_per_min: number | null;
  /** The credential's own limit; null follows the site's. */
  requests_per_min: number | null;
}

export function findLiveSession(db: Db, tokenHash: Buffer): Promise<SessionRow | null> {
  return db.oneOrNone<SessionRow>(q.findSession, { tokenHash });
}

export function insertSession(
  db: Db,
  accountId: string,
  tokenHash: Buffer,
  expiresAt: Date,
): Promise<{ id: string; expires_at: Date }> {
  return db.one(q.insertSession, { accountId, tokenHash, expiresAt });
}

export function deleteSession(db: Db, id: string): Promise<null> {
  return db.none(q.deleteSession, { id });
}

export function findCredentialByHash(db: Db, secretHash: Buffer): Promise<CredentialAuthRow | null> {
  return db.oneOrNone<CredentialAuthRow>(q.findCredential, { secretHash });
}
