import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createDb } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';
import { insertSiteWithIngestKey } from '../helpers/fixtures.ts';
import type { RadarProcess } from '../helpers/processes.ts';
import { PG_BASE, REDIS_URL } from './env.ts';

/** A fresh database and key prefix with one site, for a benchmark that runs Radar's processes. */
export interface BenchSite {
  tag: string;
  dbUrl: string;
  siteId: string;
  /** An ingest credential's secret (events write, receipts read). */
  secret: string;
  /** A read credential's secret (analytics:read, finance:read). */
  readSecret: string;
}

/** Migrates a fresh database and creates an account, a site and its credentials. */
export async function benchSite(): Promise<BenchSite> {
  const tag = `bench${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const url = new URL(PG_BASE);
  url.pathname = `/radar_${tag}`;
  const dbUrl = url.toString();
  await migrate(dbUrl);
  const db = createDb({ url: dbUrl, poolSize: 1, applicationName: 'radar-bench' });
  try {
    const { siteId, ingestKey, readKey } = await insertSiteWithIngestKey(db);
    return { tag, dbUrl, siteId, secret: ingestKey, readSecret: readKey };
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
