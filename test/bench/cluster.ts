import { randomBytes } from 'node:crypto';
import { insertAccount } from '../../src/accounts/repo.ts';
import { openSession } from '../../src/auth/sessions.ts';
import { createDb, type Db } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';
import { insertSite } from '../../src/sites/repo.ts';
import { freePort } from '../helpers/ports.ts';
import { spawnRadar, type RadarProcess } from '../helpers/processes.ts';
import { deleteRedisKeys } from '../helpers/services.ts';
import { PG_BASE, REDIS_URL } from './env.ts';

export interface BenchCluster {
  tag: string;
  db: Db;
  base: string;
  siteId: string;
  /** The site owner's session token. */
  session: string;
  door: RadarProcess;
  worker: RadarProcess;
  /** The environment the Radar processes run with (for `radar` commands against them). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A fresh database on the local PostgreSQL with one account and site, and `radar serve` plus
 * `radar work --queues <queues>` as child processes (as deployed), for benchmarks that drive
 * Radar from outside. close() stops them and drops the database and the Redis keys.
 */
export async function benchCluster(name: string, queues: string): Promise<BenchCluster> {
  const tag = `bench_${name}_${randomBytes(3).toString('hex')}`;
  const url = new URL(PG_BASE);
  url.pathname = `/${tag}`;
  await migrate(url.toString());
  const db = createDb({ url: url.toString(), poolSize: 2, applicationName: `bench-${name}` });
  const procs: RadarProcess[] = [];
  const close = async () => {
    for (const p of procs) await p.kill('SIGTERM').catch(() => undefined);
    await db.$pool.end();
    const admin = createDb({ url: PG_BASE, poolSize: 1, applicationName: `bench-${name}-cleanup` });
    await admin.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [tag]);
    await admin.$pool.end();
    await deleteRedisKeys(REDIS_URL, tag);
  };
  try {
    const account = await insertAccount(db, {
      email: `${tag}@example.com`,
      name: null,
      passwordHash: null,
      admin: false,
    });
    const site = await insertSite(db, account.id, {
      name: 'Bench',
      websiteUrl: 'https://bench.example',
      description: name,
      category: 'api',
      publicMetrics: false,
    });
    const session = await openSession(db, account.id, 2);
    const port = await freePort();
    const env = {
      DATABASE_URL: url.toString(),
      REDIS_URL,
      QUEUE_PREFIX: tag,
      PORT: String(port),
      DATABASE_POOL_SIZE: '6',
    };
    const door = await spawnRadar(['serve'], env);
    procs.push(door);
    const worker = await spawnRadar(['work', '--queues', queues], env);
    procs.push(worker);
    return {
      tag,
      db,
      base: `http://127.0.0.1:${port}`,
      siteId: site.id,
      session: session.token,
      door,
      worker,
      env,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
