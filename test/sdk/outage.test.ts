import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RadarClient } from 'radar/sdk';
import { eventually } from '../helpers/eventually.ts';
import { insertSiteWithIngestKey } from '../helpers/fixtures.ts';
import { freePort } from '../helpers/ports.ts';
import { privateRedis, type PrivateRedis } from '../helpers/private-services.ts';
import { spawnRadar, type RadarProcess } from '../helpers/processes.ts';
import { testServices, type TestServices } from '../helpers/services.ts';

/**
 * Issue #20: the SDK pushes 100,000 records through a real Radar (`radar serve` and
 * `radar work` processes) while its Redis is stopped for 5 s and its front door is killed and
 * started again; every record ends up stored exactly once and the SDK's counters say so.
 */

const TOTAL = 100_000;
const REDIS_DOWN_MS = 5000;

let redis: PrivateRedis;
let services: TestServices;
const processes: RadarProcess[] = [];

before(async () => {
  redis = await privateRedis();
  services = await testServices({ REDIS_URL: redis.url });
});
after(async () => {
  for (const p of processes) await p.kill('SIGKILL').catch(() => undefined);
  await services?.cleanup();
  await redis?.destroy();
});

test('100,000 records through a Redis outage and a front door restart: each stored once, counters agree', async () => {
  const { siteId, ingestKey } = await insertSiteWithIngestKey(services.db);
  const port = await freePort();
  const env = {
    DATABASE_URL: services.config.DATABASE_URL,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: services.config.QUEUE_PREFIX,
    PORT: String(port),
    INGEST_SYNC_WAIT_MS: '3000',
    DATABASE_POOL_SIZE: '6',
  };
  const start = async (args: string[]) => {
    const p = await spawnRadar(args, env);
    processes.push(p);
    return p;
  };
  let door = await start(['serve']);
  await start(['work', '--queues', 'ingest']);

  const client = new RadarClient({
    baseUrl: `http://127.0.0.1:${port}`,
    siteId,
    key: ingestKey,
    retry: { baseMs: 100, maxMs: 2000 },
  });
  const undelivered: unknown[] = [];
  client.on('rejected', (r) => undelivered.push(r));
  client.on('failed', (r) => undelivered.push(r));
  const acknowledged = (n: number) =>
    eventually(() => (client.counters().acknowledged >= n ? true : undefined), 120_000, `${n} records acknowledged`);

  const produced = (async () => {
    for (let i = 0; i < TOTAL; i++) {
      await client.track({
        event_id: `sdk_${i}`,
        event_type: 'visit',
        occurred_at: '2026-11-20T08:00:00Z',
        session_id: `s_${i % 977}`,
      });
    }
  })();

  await acknowledged(10_000);
  await redis.kill();
  // The outage the issue asks for lasts 5 s whatever the SDK does meanwhile.
  await new Promise((r) => setTimeout(r, REDIS_DOWN_MS));
  await redis.start();
  const afterRedis = client.counters().acknowledged;
  await acknowledged(afterRedis + 10_000);

  await door.kill('SIGKILL');
  processes.splice(processes.indexOf(door), 1);
  door = await start(['serve']);

  await produced;
  const c = await client.shutdown();
  assert.deepEqual(undelivered, []);
  assert.deepEqual(
    { added: c.added, acknowledged: c.acknowledged, applied: c.applied, unchanged: c.unchanged, queued: c.queued },
    { added: TOTAL, acknowledged: TOTAL, applied: TOTAL, unchanged: 0, queued: 0 },
  );
  assert.ok(c.retries > 0, 'the outages were felt: some sends were retried');

  const stored = await services.db.one<{ n: number; distinct: number }>(
    `SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS distinct FROM ingest_events WHERE site_id = $1`,
    [siteId],
  );
  assert.deepEqual(stored, { n: TOTAL, distinct: TOTAL });
  const batches = await services.db.one<{ received: number; applied: number }>(
    `SELECT sum(received)::int AS received, sum(applied)::int AS applied FROM ingest_batches WHERE site_id = $1`,
    [siteId],
  );
  assert.deepEqual(batches, { received: TOTAL, applied: TOTAL }, 'no batch was stored twice under two ids');
});
