import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createDb } from '../../src/db/connection.ts';
import { applyBatch } from '../../src/ingest/apply.ts';
import { canonicalBatch } from '../../src/ingest/canonical.ts';
import { acceptBatch } from '../../src/ingest/repo.ts';
import { enqueue, JOBS } from '../../src/queues/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/eventually.ts';
import { call } from '../helpers/http.ts';
import { insertSiteWithIngestKey } from '../helpers/fixtures.ts';
import { freePort } from '../helpers/ports.ts';
import { testServices } from '../helpers/services.ts';
import { batch, ingestSite, postBatch, sampleRecord, type IngestSite } from './fixtures.ts';

/**
 * A batch the worker can never apply ends `rejected`, visibly, after a bounded number of
 * attempts, instead of being retried for ever; the front door refuses such input first.
 * The unstorable batch here is written straight into ingest_batches, as one accepted before
 * the front door checked text would be.
 */
let app: TestApp;
let site: IngestSite;
before(async () => {
  app = await startTestApp({ workers: ['ingest'] });
  site = await ingestSite(app);
});
after(() => app.close());

const UNSTORABLE = [
  sampleRecord('events', 'fine'),
  sampleRecord('events', 'nul', { properties: { feature: 'a\u0000b' } }),
  sampleRecord('events', 'surrogate', { properties: { channel: 'x\ud800' } }),
];

async function storeQueued(batchId: string, records: readonly Record<string, unknown>[]) {
  const key = { siteId: site.siteId, resource: 'events' as const, batchId };
  const row = await acceptBatch(app.db, key, { ...canonicalBatch(records), received: records.length });
  assert.equal(row?.created, true);
  return key;
}

const receipt = (batchId: string) =>
  call(app.url, 'GET', `/api/v1/sites/${site.siteId}/ingest/receipts/${batchId}?resource=events`, {
    bearer: site.ingestKey,
  });

function sample(text: string, name: string, labels: Record<string, string>): number | null {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && want.every((w) => l.includes(w)));
  return line === undefined ? null : Number(line.split(' ').pop());
}

test('the front door refuses the text the worker could not store: 400 naming each value, nothing stored', async () => {
  const r = await postBatch(app, site, 'events', batch('events', 'refused', UNSTORABLE));
  assert.equal(r.status, 400, r.text);
  assert.equal(r.body.code, 'validation_failed');
  assert.deepEqual(
    r.body.errors.map((e: { path: string }) => e.path),
    ['/records/1/properties/feature', '/records/2/properties/channel'],
  );
  assert.equal((await receipt('refused')).status, 404);
});

test('a stored batch PostgreSQL cannot hold ends rejected as batch_unprocessable, shown by its receipt and counted', async () => {
  const key = await storeQueued('poison', UNSTORABLE);
  await enqueue(app.door.app.queues, JOBS.ingestApply, {
    site_id: key.siteId,
    resource: key.resource,
    batch_id: key.batchId,
  });

  const rejected = await eventually(
    async () => {
      const r = await receipt('poison');
      return r.body.status === 'queued' ? undefined : r;
    },
    60_000,
    'the poison batch to leave queued',
  );
  assert.equal(rejected.status, 200, rejected.text);
  assert.equal(rejected.body.status, 'rejected');
  assert.equal(rejected.body.applied, 0);
  assert.match(rejected.body.completed_at, /Z$/);
  assert.equal(rejected.body.problem.code, 'batch_unprocessable');
  assert.match(rejected.body.problem.detail, /3 times/);
  assert.deepEqual(
    rejected.body.problem.errors.map((e: { path: string }) => e.path),
    ['/records/1/properties/feature', '/records/2/properties/channel'],
  );

  const row = await app.db.one(
    "SELECT apply_failures, payload FROM ingest_batches WHERE site_id = $1 AND batch_id = 'poison'",
    [site.siteId],
  );
  assert.deepEqual(row, { apply_failures: 3, payload: null });
  assert.equal(
    (await app.db.one('SELECT count(*)::int AS n FROM ingest_events WHERE site_id = $1', [site.siteId])).n,
    0,
    'nothing of it applied',
  );
  // Done: applying it again changes nothing.
  assert.deepEqual(await applyBatch(app.db, key), { status: 'skipped', reason: 'rejected' });

  const metrics = await call(app.url, 'GET', '/metrics');
  assert.equal(
    sample(metrics.text, 'radar_ingest_batches_rejected_total', { code: 'batch_unprocessable' }),
    1,
    metrics.text,
  );
});

test('a data failure is retried until the bound; a lost connection is not counted as one', async (t) => {
  // No worker (nor its sweeper) here: this test is the only applier.
  const services = await testServices();
  t.after(() => services.cleanup());
  const { db } = services;
  const { siteId } = await insertSiteWithIngestKey(db);
  const records = [sampleRecord('events', 'c', { properties: { product_category: '\u0000' } })];
  const key = { siteId, resource: 'events' as const, batchId: 'counted' };
  await acceptBatch(db, key, { ...canonicalBatch(records), received: 1 });

  await assert.rejects(applyBatch(db, key), /Unicode/);
  const failures = async () =>
    await db.one("SELECT apply_failures AS n, status FROM ingest_batches WHERE site_id = $1 AND batch_id = 'counted'", [
      siteId,
    ]);
  assert.deepEqual(await failures(), { n: 1, status: 'queued' });

  // PostgreSQL unreachable: the error propagates (the job retries) and the count stays.
  const nowhere = createDb({
    url: `postgres://postgres@127.0.0.1:${await freePort()}/nowhere`,
    poolSize: 1,
    applicationName: 'radar-test',
  });
  try {
    await assert.rejects(applyBatch(nowhere, key), /ECONNREFUSED/);
  } finally {
    await nowhere.$pool.end();
  }
  assert.deepEqual(await failures(), { n: 1, status: 'queued' });

  await assert.rejects(applyBatch(db, key), /Unicode/);
  const outcome = await applyBatch(db, key);
  assert.equal(outcome.status, 'rejected');
  assert.deepEqual(await failures(), { n: 3, status: 'rejected' });
});
