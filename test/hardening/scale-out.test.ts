import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Queue } from 'bullmq';
import { ROLLUP_QUEUE } from '../../src/queues/catalog.ts';
import { view, waitForRollups } from '../analytics/fixtures.ts';
import { startTestApp } from '../helpers/app.ts';
import { assertAppliedOnce, ingestLoad, type LoadBatch } from '../helpers/ingest-load.ts';
import { eventually } from '../helpers/eventually.ts';
import { createCredential } from '../helpers/fixtures.ts';
import { freePort } from '../helpers/ports.ts';
import { spawnRadar, type RadarProcess } from '../helpers/processes.ts';
import { testServices } from '../helpers/services.ts';
import { ingestSite, type IngestSite } from '../ingest/fixtures.ts';

/**
 * Issue #7 scale-out: three `radar work` processes — three hosts as far as Redis and
 * PostgreSQL can tell — share one stream of ingest batches and their rollups while one of them
 * is SIGKILLed, and end with exactly what one worker alone makes of the same stream.
 */

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const SWEEP_EVERY_MS = 1000;

/** A small deterministic PRNG, so both runs see the same records. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Events of 80 users over two weeks, and their orders in two currencies: enough for every view to have figures. */
function stream(): LoadBatch[] {
  const rnd = prng(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const at = () => new Date(Date.UTC(2026, 10, 1) + Math.floor(rnd() * 14 * 86_400_000)).toISOString();
  const types = [
    'visit',
    'visit',
    'visit',
    'registration_completed',
    'activation_completed',
    'usage',
    'workflow_completed',
    'order_paid',
  ] as const;
  const batches: LoadBatch[] = [];
  for (let b = 0; b < 36; b++) {
    const batchId = `ev-${b}`;
    batches.push({
      resource: 'events',
      batchId,
      records: Array.from({ length: 100 }, (_, i) => {
        const user = `u${Math.floor(rnd() * 80)}`;
        return {
          event_id: `${batchId}-${i}`,
          event_type: pick(types),
          source: 'site_backend',
          occurred_at: at(),
          external_user_id: user,
          session_id: `${user}-s${Math.floor(rnd() * 6)}`,
          properties: { channel: pick(['search', 'social', 'direct']) },
        };
      }),
    });
    if (b % 6 === 0) {
      const orderBatch = `ord-${b}`;
      batches.push({
        resource: 'orders',
        batchId: orderBatch,
        records: Array.from({ length: 20 }, (_, i) => ({
          order_id: `${orderBatch}-${i}`,
          source: 'site_backend',
          occurred_at: at(),
          external_user_id: `u${Math.floor(rnd() * 80)}`,
          amount_minor: 100 + Math.floor(rnd() * 9900),
          currency: pick(['USD', 'EUR']),
          status: pick(['paid', 'paid', 'pending']),
          plan_id: 'pro',
        })),
      });
    }
  }
  return batches;
}

/** Sends `batches` with four concurrent clients; `onAck` hears the running count of acknowledged batches. */
function send(base: string, site: IngestSite, batches: readonly LoadBatch[]) {
  const todo = [...batches];
  return ingestLoad({
    base,
    siteId: site.siteId,
    ingestKey: site.ingestKey,
    clients: 4,
    timeoutMs: 30_000,
    next: () => todo.shift() ?? null,
  });
}

const VIEWS = ['overview', 'acquisition', 'timeseries', 'finance', 'funnel', 'retention'] as const;

/** Every view over the stream's two weeks, without `freshness` (when it was computed differs by run). */
async function analytics(base: string, site: IngestSite): Promise<Record<string, unknown>> {
  const key = await createCredential(base, site.account, site.siteId, 'read', ['analytics:read', 'finance:read']);
  const out: Record<string, unknown> = {};
  for (const name of VIEWS) {
    const r = await view({ url: base }, site.siteId, name, key, {
      from: '2026-11-01',
      to: '2026-11-16',
      tz: 'Asia/Shanghai',
    });
    assert.equal(r.status, 200, `${name}: ${r.text}`);
    const { freshness: _ignored, ...rest } = r.body;
    out[name] = rest;
  }
  return out;
}

test('three worker processes, one SIGKILLed midway: every batch applied once, analytics equal to one worker, one sweep per tick', async () => {
  const batches = stream();
  const env = { ROLLUP_SWEEP_EVERY_MS: String(SWEEP_EVERY_MS), INGEST_SYNC_WAIT_MS: '2000' };

  // The reference: one front door and one worker, in this process.
  const single = await startTestApp({ workers: ['ingest', 'rollup'], env });
  cleanups.push(() => single.close());
  const singleSite = await ingestSite(single);

  // The cluster: a front door and three worker processes on one Redis and one PostgreSQL.
  const services = await testServices(env);
  cleanups.push(() => services.cleanup());
  const port = await freePort();
  const clusterEnv = {
    ...env,
    DATABASE_URL: services.config.DATABASE_URL,
    REDIS_URL: services.config.REDIS_URL,
    QUEUE_PREFIX: services.config.QUEUE_PREFIX,
    PORT: String(port),
    PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
    WORKER_CONCURRENCY: '4',
  };
  const procs: RadarProcess[] = [];
  cleanups.push(() => Promise.all(procs.map((p) => p.kill('SIGKILL'))));
  const door = await spawnRadar(['serve'], clusterEnv);
  procs.push(door);
  const workersStarted = Date.now();
  const workers = await Promise.all([0, 1, 2].map(() => spawnRadar(['work', '--queues', 'ingest,rollup'], clusterEnv)));
  procs.push(...workers);
  const base = `http://127.0.0.1:${port}`;
  const clusterSite = await ingestSite({ url: base, db: services.db });

  const singleLoad = send(single.url, singleSite, batches);
  const clusterLoad = send(base, clusterSite, batches);
  // Kill one worker once a third of the stream is acknowledged, with batches and rollups in flight.
  await eventually(
    () => (clusterLoad.acknowledged.size >= batches.length / 3 ? true : undefined),
    60_000,
    'a third of the stream to be acknowledged',
  );
  await workers[1]!.kill('SIGKILL');
  await Promise.all([singleLoad.finished, clusterLoad.finished]);

  for (const load of [singleLoad, clusterLoad]) {
    assert.equal(load.acknowledged.size, batches.length, 'every batch acknowledged');
    assert.ok(
      load.answers.every((a) => a.status === 200 || a.status === 202),
      JSON.stringify(load.answers.filter((a) => a.status !== 200 && a.status !== 202)),
    );
  }
  await assertAppliedOnce(services.db, clusterSite.siteId, clusterLoad.acknowledged.values(), 60_000);
  await assertAppliedOnce(single.db, singleSite.siteId, singleLoad.acknowledged.values(), 60_000);
  await waitForRollups({ db: services.db }, clusterSite.siteId, 60_000);
  await waitForRollups(single, singleSite.siteId, 60_000);

  const [clustered, alone] = await Promise.all([analytics(base, clusterSite), analytics(single.url, singleSite)]);
  assert.ok((clustered.overview as { data: unknown }).data, 'overview has figures');
  assert.deepEqual(clustered, alone, 'the cluster computed what one worker did');

  // The sweep scheduler was upserted by all three workers but is one scheduler, and each of its
  // ticks ran on exactly one host.
  // A sweep waits behind the ingest jobs on a loaded machine, so the load can be over before a
  // few ticks have run: wait for three (each on one host), then judge every tick so far.
  const sweepsLogged = () =>
    workers.flatMap((w, host) =>
      w.logs.filter((l) => l.msg === 'rollup sweep done').map((l) => ({ host, jobId: String(l.jobId) })),
    );
  await eventually(() => (sweepsLogged().length >= 3 ? true : undefined), 30_000, "three sweeps' log lines");

  const observedMs = Date.now() - workersStarted;
  const queue = new Queue(ROLLUP_QUEUE, {
    connection: { url: services.config.REDIS_URL },
    prefix: services.config.QUEUE_PREFIX,
  });
  cleanups.push(() => queue.close());
  assert.deepEqual(
    (await queue.getJobSchedulers()).map((s) => s.key),
    ['rollup-sweep'],
  );
  const sweeps = sweepsLogged();
  const ticks = sweeps.map((s) => Number(/(\d+)$/.exec(s.jobId)?.[1]));
  assert.equal(new Set(sweeps.map((s) => s.jobId)).size, sweeps.length, `no tick ran twice: ${JSON.stringify(sweeps)}`);
  assert.ok(
    ticks.every((t) => Number.isFinite(t)),
    'sweep jobs are named by their tick',
  );
  assert.ok(
    sweeps.length <= Math.ceil(observedMs / SWEEP_EVERY_MS) + 1,
    `${sweeps.length} sweeps in ${observedMs} ms is at most one per tick`,
  );
  const sorted = [...ticks].sort((a, b) => a - b);
  assert.ok(
    sorted.every((t, i) => i === 0 || t - sorted[i - 1]! >= SWEEP_EVERY_MS),
    `ticks are a period apart: ${sorted.join(', ')}`,
  );
});
