import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { batch, ingestSite, postBatch, sampleRecord } from './fixtures.ts';

let app: TestApp;
before(async () => {
  app = await startTestApp({ workers: ['ingest'], env: { INGEST_QUOTA_RECORDS_PER_MIN: '600' } });
});
after(() => app.close());

const records = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => sampleRecord('events', `${prefix}_${i}`));

test('the per-site ingest quota counts records; past it, 429 and nothing is stored', async () => {
  const site = await ingestSite(app);
  const started = Date.now();
  const first = await postBatch(app, site, 'events', batch('events', 'quota-1', records('a', 500)));
  assert.equal(first.status, 200, first.text);
  assert.equal(first.headers.get('ratelimit-remaining'), '100');

  const second = await postBatch(app, site, 'events', batch('events', 'quota-2', records('b', 500)));
  assert.equal(second.status, 429);
  assert.equal(second.body.code, 'rate_limited');
  // 400 missing records refill at 10 per second, less what refilled while the first batch was
  // applied (seconds on a loaded machine).
  const retry = Number(second.headers.get('retry-after'));
  const elapsed = Math.ceil((Date.now() - started) / 1000);
  assert.ok(retry >= 39 - elapsed && retry <= 40, `retry-after ${retry} after ${elapsed} s`);
  const stored = await app.db.one("SELECT count(*)::int AS n FROM ingest_batches WHERE batch_id = 'quota-2'");
  assert.equal(stored.n, 0, 'a refused batch is not stored');

  // A small batch still fits, and another site has its own quota.
  assert.equal((await postBatch(app, site, 'events', batch('events', 'quota-3', records('c', 50)))).status, 200);
  const other = await ingestSite(app);
  assert.equal((await postBatch(app, other, 'events', batch('events', 'quota-4', records('d', 500)))).status, 200);
});
