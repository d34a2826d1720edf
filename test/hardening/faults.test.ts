import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { assertViewsMatchRebuild, waitForRollups } from '../analytics/fixtures.ts';
import { insertSiteWithIngestKey } from '../helpers/fixtures.ts';
import { eventually } from '../helpers/eventually.ts';
import { call } from '../helpers/http.ts';
import { assertAppliedOnce, ingestLoad, visitBatches, type IngestLoad } from '../helpers/ingest-load.ts';
import { privatePostgres, privateRedis, type PrivatePostgres, type PrivateRedis } from '../helpers/private-services.ts';
import { spawnRadar, type RadarProcess } from '../helpers/processes.ts';
import { testServices, type TestServices } from '../helpers/services.ts';

/**
 * Issue #7 faults: PostgreSQL and Redis stopped under ingest load, and a worker killed in the
 * middle of its transaction. The servers stopped here are this file's own, on their own ports;
 * Radar runs as real `radar serve` / `radar work` processes against them.
 */

const SYNC_WAIT_MS = 3000;
// The front door gives up on an enqueue after 2 s (src/ingest/service.ts); beyond its sync wait
// plus that (and slack for a busy machine), an answer is a hang.
const HANG_MS = SYNC_WAIT_MS + 2000 + 3000;

let pgServer: PrivatePostgres;
let redis: PrivateRedis;
const cleanups: (() => Promise<unknown>)[] = [];

before(async () => {
  [pgServer, redis] = await Promise.all([privatePostgres(), privateRedis()]);
});
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  await Promise.all([pgServer?.destroy(), redis?.destroy()]);
});

interface Cluster {
  services: TestServices;
  siteId: string;
  ingestKey: string;
  readKey: string;
  door: RadarProcess;
  base: string;
  spawnWorker(): Promise<RadarProcess>;
}

/**
 * A database on the private server, one site with an ingest key and an analytics read key, a
 * front door and one worker.
 */
async function cluster(): Promise<Cluster> {
  const services = await testServices({ REDIS_URL: redis.url }, { pgBase: pgServer.url });
  cleanups.push(() => services.cleanup());
  const { siteId, ingestKey, readKey } = await insertSiteWithIngestKey(services.db);
  const env = {
    DATABASE_URL: services.config.DATABASE_URL,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: services.config.QUEUE_PREFIX,
    PORT: '0',
    INGEST_SYNC_WAIT_MS: String(SYNC_WAIT_MS),
    DATABASE_POOL_SIZE: '6',
  };
  const spawnOne = async (args: string[]) => {
    const p = await spawnRadar(args, env);
    cleanups.push(() => p.kill('SIGKILL'));
    return p;
  };
  const door = await spawnOne(['serve']);
  return {
    services,
    siteId,
    ingestKey,
    readKey,
    door,
    base: `http://127.0.0.1:${door.port}`,
    // Rollups too: batches are folded into them while the fault strikes.
    spawnWorker: () => spawnOne(['work', '--queues', 'ingest,rollup']),
  };
}

/** Every answer was an acknowledgment or a 503 problem with Retry-After, each within the bound. */
function assertAnswersClean(load: IngestLoad): void {
  const bad = load.answers.filter((a) => {
    if (a.status === 200 || a.status === 202) return a.ms > HANG_MS;
    if (a.status === 503)
      return (
        !a.retryAfter ||
        a.code !== 'service_unavailable' ||
        !a.contentType?.startsWith('application/problem+json') ||
        a.ms > HANG_MS
      );
    return true;
  });
  assert.deepEqual(bad, [], 'every answer is 200/202, or 503 problem+json with Retry-After, in time');
}

// Batches acknowledged before the outage, and again after it.
const ACKNOWLEDGED_EACH_SIDE = 6;

/**
 * Load until some batches are acknowledged, the outage until the front door has answered it
 * with 503, load again until more are acknowledged: the shape of both stop tests, whatever the
 * speed of the machine.
 */
async function loadThrough(
  c: Cluster,
  prefix: string,
  outage: { stop(): Promise<void>; start(): Promise<void> },
): Promise<IngestLoad> {
  const load = ingestLoad({
    base: c.base,
    siteId: c.siteId,
    ingestKey: c.ingestKey,
    clients: 4,
    next: visitBatches(prefix, 50),
    timeoutMs: HANG_MS + 5000,
  });
  const acknowledged = (n: number, what: string) =>
    eventually(() => (load.acknowledged.size >= n ? true : undefined), 60_000, what);
  try {
    await acknowledged(ACKNOWLEDGED_EACH_SIDE, 'batches acknowledged before the outage');
    await outage.stop();
    const seen = load.answers.length;
    await eventually(
      () => (load.answers.slice(seen).some((a) => a.status === 503) ? true : undefined),
      60_000,
      'a 503 during the outage',
    );
    await outage.start();
    await acknowledged(load.acknowledged.size + ACKNOWLEDGED_EACH_SIDE, 'batches acknowledged after the outage');
  } finally {
    await load.stop();
  }
  return load;
}

test('Redis stopped under ingest load: 503 with Retry-After, then every acknowledged batch applied once', async () => {
  const c = await cluster();
  await c.spawnWorker();
  const load = await loadThrough(c, 'redis', { stop: () => redis.kill(), start: () => redis.start() });

  assertAnswersClean(load);
  await assertAppliedOnce(c.services.db, c.siteId, load.acknowledged.values(), 60_000);
  await assertViewsMatchRebuild({ url: c.base }, c.services.db, c.siteId, c.readKey);
});

test('PostgreSQL stopped under ingest load: 503 with Retry-After, then every acknowledged batch applied once', async () => {
  const c = await cluster();
  await c.spawnWorker();
  // The test's own pool loses its connections with the server; it reconnects after.
  const load = await loadThrough(c, 'pg', { stop: () => pgServer.stop('immediate'), start: () => pgServer.start() });

  assertAnswersClean(load);
  await assertAppliedOnce(c.services.db, c.siteId, load.acknowledged.values(), 60_000);
  const health = await call(c.base, 'GET', '/readyz');
  assert.equal(health.status, 200, 'the front door is ready again');
  await assertViewsMatchRebuild({ url: c.base }, c.services.db, c.siteId, c.readKey);
});

test('a worker killed in the middle of its transaction leaves no partial batch; the job is retried and applied once', async () => {
  const c = await cluster();
  const worker = await c.spawnWorker();
  const event = (id: string, revision = 1) => ({
    event_id: id,
    revision,
    event_type: 'visit',
    source: 'site_backend',
    occurred_at: '2026-11-20T08:00:00Z',
    session_id: id,
  });
  const post = (batchId: string, records: object[], headers: Record<string, string> = {}) =>
    call(c.base, 'POST', `/api/v1/sites/${c.siteId}/ingest/events`, {
      bearer: c.ingestKey,
      body: { schema_version: 'events.v1', batch_id: batchId, records },
      headers,
    });
  // One record already stored: the batch below revises it, so it takes the revision-guarded
  // path, a transaction of several statements (a batch of only new records is one statement,
  // which PostgreSQL finishes and commits whole even when its client is gone).
  assert.equal((await post('first', [event('mid_0')])).status, 200);

  // Hold the table the batch's statement trigger writes to: the worker's transaction then stops
  // after its rows are written, before it can commit.
  const blocker = new pg.Client({ connectionString: c.services.config.DATABASE_URL });
  await blocker.connect();
  cleanups.push(() => blocker.end());
  await blocker.query('BEGIN');
  await blocker.query('LOCK TABLE analytics_dirty IN SHARE MODE');

  const records = [event('mid_0', 2), ...Array.from({ length: 39 }, (_, i) => event(`mid_${i + 1}`))];
  const r = await post('mid', records, { prefer: 'respond-async' });
  assert.equal(r.status, 202, r.text);

  // The worker's backend has written (it holds a transaction id) and waits on our lock.
  const midway = () =>
    c.services.db.one<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'radar-worker' AND wait_event_type = 'Lock' AND backend_xid IS NOT NULL AND query ILIKE '%ingest_events%'",
    );
  await eventually(
    async () => ((await midway()).n === 1 ? true : undefined),
    20_000,
    'the worker to reach the middle of its transaction',
  );
  const before = { rows: 1, revision: 1, status: 'queued' };
  const visible = () =>
    c.services.db.one<typeof before>(
      "SELECT (SELECT count(*)::int FROM ingest_events WHERE site_id = $1) AS rows, (SELECT revision FROM ingest_events WHERE site_id = $1 AND event_id = 'mid_0') AS revision, (SELECT status FROM ingest_batches WHERE site_id = $1 AND batch_id = 'mid') AS status",
      [c.siteId],
    );
  assert.deepEqual(await visible(), before, 'nothing of the open transaction is visible');

  await worker.kill('SIGKILL');
  await blocker.query('COMMIT');
  // Its backend ends once PostgreSQL sees the connection gone: whatever it would commit, it has by then.
  await eventually(
    async () =>
      (await midway()).n === 0 &&
      (
        await c.services.db.one<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'radar-worker' AND backend_xid IS NOT NULL",
        )
      ).n === 0
        ? true
        : undefined,
    20_000,
    "the killed worker's transaction to end",
  );
  assert.deepEqual(await visible(), before, 'the dead transaction committed nothing');

  // Another worker finds the job stalled (its lock expired) and applies it.
  await c.spawnWorker();
  await assertAppliedOnce(c.services.db, c.siteId, [{ resource: 'events', batchId: 'mid', records }], 60_000);
  await assertViewsMatchRebuild({ url: c.base }, c.services.db, c.siteId, c.readKey);
});

test('a worker killed in the middle of a fold leaves the pending changes for the next one; every view equals a rebuild', async () => {
  const c = await cluster();
  const worker = await c.spawnWorker();
  // Hold the table the fold writes last: its transaction then stops after it has written the
  // counts and the session starts of what is pending, before it can delete the pending rows
  // and commit.
  const blocker = new pg.Client({ connectionString: c.services.config.DATABASE_URL });
  await blocker.connect();
  cleanups.push(() => blocker.end());
  await blocker.query('BEGIN');
  await blocker.query('LOCK TABLE analytics_sets IN SHARE MODE');

  const load = ingestLoad({
    base: c.base,
    siteId: c.siteId,
    ingestKey: c.ingestKey,
    clients: 2,
    next: visitBatches('fold', 50),
    timeoutMs: HANG_MS + 5000,
  });
  // The fold's statement adding pending users to the bitmaps (fold-sets.sql), waiting on our lock.
  const folding = () =>
    c.services.db.one<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'radar-worker' AND wait_event_type = 'Lock' AND backend_xid IS NOT NULL AND query ILIKE '%FROM analytics_pending_users%'",
    );
  try {
    await eventually(async () => ((await folding()).n === 1 ? true : undefined), 30_000, 'a fold to stop midway');
  } finally {
    await load.stop();
  }
  await worker.kill('SIGKILL');
  await blocker.query('COMMIT');

  // Another worker applies what was queued and folds everything the dead fold left pending.
  await c.spawnWorker();
  await assertAppliedOnce(c.services.db, c.siteId, load.acknowledged.values(), 60_000);
  await waitForRollups({ db: c.services.db }, c.siteId, 60_000);
  await assertViewsMatchRebuild({ url: c.base }, c.services.db, c.siteId, c.readKey);
});
