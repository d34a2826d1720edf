import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { insertAccount } from '../../src/accounts/repo.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { hashSecret, newSecret } from '../../src/auth/secrets.ts';
import { insertCredential } from '../../src/credentials/repo.ts';
import { createDb } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';
import { insertSite } from '../../src/sites/repo.ts';
import type { RadarProcess } from '../helpers/processes.ts';
import { PG_BASE, REDIS_URL } from './env.ts';

/** A fresh database and key prefix with one site, for a benchmark that runs Radar's processes. */
export interface BenchSite {
  tag: string;
  dbUrl: string;
  siteId: string;
  /** An ingest credential's secret (events write, receipts read). */
  secret: string;
  /** A read credential's secret with `readScopes`, when asked for. */
  readSecret: string | null;
}

/** Migrates a fresh database and creates an account, a site and its credentials. */
export async function benchSite(readScopes: readonly Scope[] = []): Promise<BenchSite> {
  const tag = `bench${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const url = new URL(PG_BASE);
  url.pathname = `/radar_${tag}`;
  const dbUrl = url.toString();
  await migrate(dbUrl);
  const db = createDb({ url: dbUrl, poolSize: 1, applicationName: 'radar-bench' });
  try {
    const account = await insertAccount(db, {
      email: `${tag}@bench.example`,
      name: 'Bench',
      passwordHash: null,
      admin: false,
    });
    const site = await insertSite(db, account.id, {
      name: 'Bench site',
      websiteUrl: 'https://bench.example',
      description: 'benchmark',
      category: 'writing',
      publicMetrics: false,
    });
    const credential = async (kind: 'ingest' | 'read', scopes: Scope[]) => {
      const secret = newSecret(kind === 'ingest' ? 'rdr_ingest_' : 'rdr_read_');
      await insertCredential(db, {
        siteId: site.id,
        createdBy: account.id,
        name: 'bench',
        kind,
        scopes,
        prefix: secret.slice(0, 12),
        secretHash: hashSecret(secret),
        expiresInDays: 1,
      });
      return secret;
    };
    const secret = await credential('ingest', ['ingest:events:write', 'ingest:receipt:read']);
    const readSecret = readScopes.length ? await credential('read', [...readScopes]) : null;
    return { tag, dbUrl, siteId: site.id, secret, readSecret };
  } finally {
    await db.$pool.end();
  }
}

/** Stops the processes, drops the database and deletes the key prefix's keys. */
export async function dropBenchSite(s: BenchSite, procs: readonly RadarProcess[]): Promise<void> {
  await Promise.all(procs.map((p) => p.kill('SIGTERM')));
  const admin = createDb({ url: PG_BASE, poolSize: 1, applicationName: 'radar-bench' });
  await admin
    .none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [new URL(s.dbUrl).pathname.slice(1)])
    .finally(() => admin.$pool.end());
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${s.tag}:*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
}
