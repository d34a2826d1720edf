import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { startFrontDoor } from '../../src/front-door.ts';
import { applyBatch } from '../../src/ingest/apply.ts';
import { INGEST_QUEUE } from '../../src/queues/catalog.ts';
import { startWorkers } from '../../workers/run.ts';
import { insertSiteWithIngestKey } from '../helpers/fixtures.ts';
import { call, type Answer } from '../helpers/http.ts';
import { testServices, type TestServices } from '../helpers/services.ts';
import { batch, sampleRecord } from './fixtures.ts';
import { privateRedis, type PrivateRedis } from '../helpers/private-services.ts';
import { spawnRadar, type RadarProcess } from '../helpers/processes.ts';
import { eventually } from '../helpers/eventually.ts';

/**
 * CONTRACT §3: once a batch is answered 200 or 202 it is never lost, whatever is killed.
 * Every Redis and every Radar process killed here is this file's own.
 */

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** `probe`'s value once `check` holds, through the one polling helper. */
function until<T>(what: string, timeoutMs: number, probe: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  return eventually(
    async () => {
      const v = await probe();
      return check(v) ? v : undefined;
    },
    timeoutMs,
    what,
  );
}

const statusOf = (services: TestServices, siteId: string) =>
  services.db.any<{ batch_id: string; status: string }>(
    'SELECT batch_id, status FROM ingest_batches WHERE site_id = $1 ORDER BY batch_id',
    [siteId],
  );

test('a job processed again after its worker committed and died before acking changes nothing', async () => {
  const services = await testServices({ INGEST_SYNC_WAIT_MS: '300' });
  cleanups.push(() => services.cleanup());
  const door = await startFrontDoor(services.config);
  cleanups.push(() => door.close());
  const site = await insertSiteWithIngestKey(services.db);
  const base = `http://127.0.0.1:${door.port}`;

  // No worker yet: the synchronous wait runs out and the answer is 202.
  const started = Date.now();
  const r = await call(base, 'POST', `/api/v1/sites/${site.siteId}/ingest/events`, {
    bearer: site.ingestKey,
    body: batch('events', 'twice', [sampleRecord('events', 1), sampleRecord('events', 2)]),
  });
  assert.equal(r.status, 202, r.text);
  assert.ok(Date.now() - started >= 300, 'waited INGEST_SYNC_WAIT_MS first');
  assert.equal(r.headers.get('preference-applied'), null);
  assert.match(r.headers.get('location')!, /\/ingest\/receipts\/twice\?resource=events$/);

  // A worker applies the batch and commits, then dies before BullMQ hears of it: the job stays.
  const key = { siteId: site.siteId, resource: 'events' as const, batchId: 'twice' };
  assert.deepEqual(await applyBatch(services.db, key), { status: 'completed', applied: 2, unchanged: 0 });
  const snapshot = () =>
    Promise.all([
      services.db.any('SELECT event_id, xmin::text FROM ingest_events WHERE site_id = $1 ORDER BY event_id', [
        site.siteId,
      ]),
      services.db.one(
        "SELECT status, applied, completed_at, xmin::text FROM ingest_batches WHERE site_id = $1 AND batch_id = 'twice'",
        [site.siteId],
      ),
    ]);
  const before = await snapshot();
  const queue = new Queue(INGEST_QUEUE, {
    connection: { url: services.config.REDIS_URL },
    prefix: services.config.QUEUE_PREFIX,
  });
  cleanups.push(() => queue.close());
  assert.equal(await queue.getWaitingCount(), 1);

  const workers = await startWorkers(services.config, ['ingest']);
  cleanups.push(() => workers.close());
  await until(
    'the redelivered job is done',
    10_000,
    () => queue.getJobCounts('waiting', 'active', 'delayed', 'failed'),
    (c) => Object.values(c).every((n) => n === 0),
  );
  assert.deepEqual(await snapshot(), before, 'no row was written again');
  assert.deepEqual(await applyBatch(services.db, key), { status: 'skipped', reason: 'completed' });
});

test('Redis down: 503 with Retry-After within the wait; the stored batch is applied once Redis is back', async () => {
  const redis = await privateRedis();
  cleanups.push(() => redis.destroy());
  const services = await testServices({ REDIS_URL: redis.url, INGEST_SYNC_WAIT_MS: '5000' });
  cleanups.push(() => services.cleanup());
  const door = await startFrontDoor(services.config);
  cleanups.push(() => door.close());
  const site = await insertSiteWithIngestKey(services.db);
  const base = `http://127.0.0.1:${door.port}`;

  await redis.kill();
  const started = Date.now();
  const r = await call(base, 'POST', `/api/v1/sites/${site.siteId}/ingest/events`, {
    bearer: site.ingestKey,
    body: batch('events', 'no-redis', [sampleRecord('events', 'nr')]),
  });
  assert.equal(r.status, 503, r.text);
  assert.equal(r.body.code, 'service_unavailable');
  assert.ok(r.headers.get('retry-after'));
  assert.ok(Date.now() - started < 5000, `answered in ${Date.now() - started} ms`);

  // What reached PostgreSQL is not lost: a Redis that comes back empty, a worker, the sweeper.
  await redis.start({ wipe: true });
  const workers = await startWorkers(services.config, ['ingest']);
  cleanups.push(() => workers.close());
  await until(
    'the batch completes',
    20_000,
    () => statusOf(services, site.siteId),
    (rows) => rows.every((x) => x.status === 'completed') && rows.length === 1,
  );
  const retry = await call(base, 'POST', `/api/v1/sites/${site.siteId}/ingest/events`, {
    bearer: site.ingestKey,
    body: batch('events', 'no-redis', [sampleRecord('events', 'nr')]),
  });
  assert.equal(retry.status, 200, retry.text);
  assert.equal(retry.body.replay, true);
});

test('killed worker, killed front door, Redis restarted empty: every answered batch is applied exactly once', async () => {
  const redis: PrivateRedis = await privateRedis();
  cleanups.push(() => redis.destroy());
  const services = await testServices({ REDIS_URL: redis.url });
  cleanups.push(() => services.cleanup());
  const site = await insertSiteWithIngestKey(services.db);
  const env = {
    DATABASE_URL: services.config.DATABASE_URL,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: services.config.QUEUE_PREFIX,
    PORT: '0',
    INGEST_SYNC_WAIT_MS: '2000',
    WORKER_CONCURRENCY: '2',
  };
  const procs: RadarProcess[] = [];
  cleanups.push(() => Promise.all(procs.map((p) => p.kill('SIGKILL'))));
  const spawn = async (args: string[]) => {
    const p = await spawnRadar(args, env);
    procs.push(p);
    return p;
  };
  const RECORDS = 200;
  const accepted = new Map<string, number>();
  const send = async (base: string, batchId: string, prefer?: string): Promise<Answer | null> => {
    try {
      const records = Array.from({ length: RECORDS }, (_, i) => sampleRecord('events', `${batchId}_${i}`));
      const r = await call(base, 'POST', `/api/v1/sites/${site.siteId}/ingest/events`, {
        bearer: site.ingestKey,
        body: batch('events', batchId, records),
        headers: prefer ? { prefer } : {},
      });
      if (r.status === 200 || r.status === 202) accepted.set(batchId, RECORDS);
      return r;
    } catch {
      return null; // the connection died with the front door: not acknowledged, may or may not apply
    }
  };

  // 1. The worker is SIGKILLed while batches stream in; Redis keeps its jobs.
  let door = await spawn(['serve']);
  let worker = await spawn(['work', '--queues', 'ingest']);
  let base = `http://127.0.0.1:${door.port}`;
  const wave1 = Array.from({ length: 12 }, (_, i) => send(base, `w1-${i}`));
  await until(
    'some batch completed',
    10_000,
    () => statusOf(services, site.siteId),
    (rows) => rows.some((x) => x.status === 'completed'),
  );
  await worker.kill('SIGKILL');
  await Promise.all(wave1);

  // 2. With no worker running, more batches are acknowledged (202), then the front door and
  // Redis are SIGKILLed and Redis comes back with nothing: every job is gone.
  const wave2 = await Promise.all(Array.from({ length: 6 }, (_, i) => send(base, `w2-${i}`, 'respond-async')));
  assert.ok(
    wave2.every((r) => r?.status === 202),
    'acknowledged while no worker ran',
  );
  await door.kill('SIGKILL');
  await redis.kill();
  await redis.start({ wipe: true });
  const probe = new Redis(redis.url);
  probe.on('error', () => undefined);
  assert.equal((await probe.keys('*')).length, 0, 'Redis lost every job');
  probe.disconnect();

  // 3. New processes: the sweeper finds what PostgreSQL acknowledged and the worker applies it.
  door = await spawn(['serve']);
  worker = await spawn(['work', '--queues', 'ingest']);
  base = `http://127.0.0.1:${door.port}`;
  assert.ok(accepted.size >= 6, `accepted ${accepted.size}`);
  const final = await until(
    'every batch leaves queued',
    45_000,
    () => statusOf(services, site.siteId),
    (rows) => rows.every((x) => x.status !== 'queued'),
  );
  for (const id of accepted.keys()) assert.equal(final.find((x) => x.batch_id === id)?.status, 'completed', id);
  const counts = await services.db.any<{ batch_id: string; n: number }>(
    'SELECT batch_id, count(*)::int AS n FROM ingest_events WHERE site_id = $1 GROUP BY batch_id',
    [site.siteId],
  );
  for (const id of accepted.keys()) assert.equal(counts.find((c) => c.batch_id === id)?.n, RECORDS, `rows of ${id}`);
  const receipt = await call(base, 'GET', `/api/v1/sites/${site.siteId}/ingest/receipts/w2-0?resource=events`, {
    bearer: site.ingestKey,
  });
  assert.equal(receipt.body.status, 'completed');
  assert.equal(receipt.body.applied, RECORDS);
});
