import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { parseConfig, type Config } from '../../config/env.ts';
import { createDb, type Db } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';
import { eventually } from './eventually.ts';

/** The shared services tests run against; CI and developers have them at these defaults. */
export const PG_BASE = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestServices {
  config: Config;
  /** A pool on the test database, for asserting on stored rows. */
  db: Db;
  /** Drops the database and every Redis key of this run. */
  cleanup(): Promise<void>;
}

/**
 * A private database (migrated) and Redis key prefix for one test file, so files can run
 * in parallel and leave nothing behind. `pgBase` points at another PostgreSQL server (a
 * fault test's own); `env.REDIS_URL` at another Redis.
 */
export async function testServices(
  env: Record<string, string> = {},
  opts: { pgBase?: string } = {},
): Promise<TestServices> {
  const pgBase = opts.pgBase ?? PG_BASE;
  const tag = `t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const url = new URL(pgBase);
  url.pathname = `/radar_${tag}`;
  const config = parseConfig({
    DATABASE_URL: url.toString(),
    REDIS_URL,
    PORT: '0',
    QUEUE_PREFIX: tag,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_POOL_SIZE: '5',
    // CI machines run many test files at once; a 3 s connect would fail setups there.
    DATABASE_CONNECT_TIMEOUT_MS: '15000',
    SHUTDOWN_TIMEOUT_MS: '5000',
    // Every answer the suite receives is checked against its route's declared response.
    RESPONSE_CONTRACT_CHECK: '1',
    ...env,
  });
  await migrate(config.DATABASE_URL);
  const db = createDb({ url: config.DATABASE_URL, poolSize: 3, applicationName: 'radar-test' });
  return {
    config,
    db,
    async cleanup() {
      await db.$pool.end();
      const admin = createDb({ url: pgBase, poolSize: 1, applicationName: 'radar-test-cleanup' });
      try {
        // pg's pool.end() resolves once its clients are told to end, not once their backends
        // are gone; a backend FORCE terminates mid-goodbye makes its client throw an uncaught
        // "terminating connection". Give them a moment to leave on their own first.
        await eventually(
          async () =>
            (
              await admin.one('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [
                url.pathname.slice(1),
              ])
            ).n === 0
              ? true
              : undefined,
          5000,
          "the test database's sessions to end",
        )
          // Those still there after that are ended by FORCE.
          .catch(() => undefined);
        await admin.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [url.pathname.slice(1)]);
      } finally {
        await admin.$pool.end();
      }
      // The shared Redis: a fault test's private one goes away with its data directory.
      await deleteRedisKeys(REDIS_URL, tag);
    },
  };
}

/** Deletes every key under `prefix:` (a test's or a benchmark's queues), and nothing else. */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
