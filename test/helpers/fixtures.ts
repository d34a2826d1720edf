import type { Scope } from '../../src/auth/scopes.ts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { insertAccount } from '../../src/accounts/repo.ts';
import { hashPassword, hashSecret, newSecret } from '../../src/auth/secrets.ts';
import { openSession } from '../../src/auth/sessions.ts';
import { insertCredential } from '../../src/credentials/repo.ts';
import type { Db } from '../../src/db/connection.ts';
import { insertSite } from '../../src/sites/repo.ts';
import { call } from './http.ts';

export interface TestAccount {
  id: string;
  email: string;
  password: string;
  session: string;
}

/** An account with a password and an open session. */
export async function createAccount(db: Db, opts: { admin?: boolean } = {}): Promise<TestAccount> {
  const email = `u${randomBytes(4).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(6).toString('hex')}`;
  const a = await insertAccount(db, {
    email,
    name: 'Test User',
    passwordHash: await hashPassword(password),
    admin: opts.admin ?? false,
  });
  const s = await openSession(db, a.id, 1);
  return { id: a.id, email, password, session: s.token };
}

export const SITE_BODY = {
  name: 'Acme Writer',
  websiteUrl: 'https://acme.example',
  description: 'An AI writing assistant',
  category: 'writing',
} as const;

/** Submits a site through the API as the account's session; returns its id. */
export async function createSite(
  base: string,
  account: TestAccount,
  body: Record<string, unknown> = SITE_BODY,
): Promise<string> {
  const r = await call(base, 'POST', '/api/v1/me/sites', { session: account.session, body });
  assert.equal(r.status, 200, r.text);
  return r.body.id;
}

/** Creates a credential through the API; returns its secret. */
export async function createCredential(
  base: string,
  account: TestAccount,
  siteId: string,
  kind: 'read' | 'ingest',
  scopes: readonly string[],
  extra: Record<string, unknown> = {},
): Promise<string> {
  const r = await call(base, 'POST', `/api/v1/sites/${siteId}/credentials`, {
    session: account.session,
    body: { name: `${kind} key`, kind, scopes, ...extra },
  });
  assert.equal(r.status, 200, r.text);
  return r.body.secret;
}

/**
 * A site, an events ingest key and an analytics read key (analytics:read, finance:read)
 * written straight into the database, for tests whose front door is a separate process (or not
 * running yet).
 */
export async function insertSiteWithIngestKey(db: Db): Promise<{ siteId: string; ingestKey: string; readKey: string }> {
  const account = await insertAccount(db, {
    email: `i${randomBytes(4).toString('hex')}@example.com`,
    name: null,
    passwordHash: null,
    admin: false,
  });
  const site = await insertSite(db, account.id, {
    name: 'Ingest',
    websiteUrl: 'https://ingest.example',
    description: 'process tests',
    category: 'api',
    publicMetrics: false,
  });
  const credential = async (kind: 'ingest' | 'read', scopes: Scope[]) => {
    const secret = newSecret(kind === 'ingest' ? 'rdr_ingest_' : 'rdr_read_');
    await insertCredential(db, {
      siteId: site.id,
      createdBy: account.id,
      name: 'k',
      kind,
      scopes,
      prefix: secret.slice(0, 12),
      secretHash: hashSecret(secret),
      expiresInDays: 1,
    });
    return secret;
  };
  const ingestKey = await credential('ingest', ['ingest:events:write', 'ingest:receipt:read']);
  const readKey = await credential('read', ['analytics:read', 'finance:read']);
  return { siteId: site.id, ingestKey, readKey };
}
