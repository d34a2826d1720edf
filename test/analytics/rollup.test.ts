import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Job } from 'bullmq';
import { rollupSite } from '../../src/analytics/rollup.ts';
import { ROLLUP_QUEUE } from '../../src/queues/catalog.ts';
import { rollupWorker } from '../../workers/rollup.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ingestSite, type IngestSite } from '../ingest/fixtures.ts';
import { ingest, waitForRollups } from './fixtures.ts';

const snapshot = (app: TestApp, siteId: string) =>
  app.db.one<{ counts: string; sets: string; presence: string }>(
    `SELECT
       (SELECT md5(string_agg(c::text, '|' ORDER BY grain, per_source, bucket, metric, channel, campaign_id, dim, currency)) FROM analytics_counts c WHERE site_id = $1) AS counts,
       (SELECT md5(string_agg(grain || kind || bucket || chunk || md5(bits::text), '|' ORDER BY grain, bucket, kind, chunk)) FROM analytics_sets WHERE site_id = $1) AS sets,
       (SELECT md5(string_agg(p::text, '|' ORDER BY day)) FROM analytics_presence p WHERE site_id = $1) AS presence`,
    [siteId],
  );

const markAllDirty = (app: TestApp, siteId: string) =>
  app.db.none(
    `INSERT INTO analytics_dirty (site_id, hour) SELECT DISTINCT site_id, date_trunc('hour', occurred_at, 'UTC') FROM ingest_events WHERE site_id = $1`,
    [siteId],
  );

describe('rollup jobs', () => {
  let app: TestApp;
  let site: IngestSite;

  before(async () => {
    app = await startTestApp({ workers: ['ingest', 'rollup'] });
    site = await ingestSite(app);
    const events = Array.from({ length: 40 }, (_, i) => ({
      event_id: `e${i}`,
      event_type: ['visit', 'registration_completed', 'usage', 'order_paid'][i % 4],
      occurred_at: new Date(Date.parse('2026-11-10T00:00:00Z') + i * 37 * 60_000).toISOString(),
      external_user_id: `u${i % 7}`,
      session_id: `s${i % 5}`,
    }));
    await ingest(app, site, 'events', 'b1', events);
    await waitForRollups(app, site.siteId);
  });
  after(() => app.close());

  test('concurrent and repeated recomputes of a site give the same rollups', async () => {
    const before = await snapshot(app, site.siteId);
    assert.ok(before.counts && before.sets && before.presence);
    await markAllDirty(app, site.siteId);
    const outcomes = await Promise.all([
      rollupSite(app.db, site.siteId),
      rollupSite(app.db, site.siteId),
      rollupSite(app.db, site.siteId),
    ]);
    // The advisory lock makes them queue: one drains the 25 hours (40 events 37 minutes apart), the others find none.
    assert.deepEqual(
      outcomes.map((o) => o.dirty).sort((a, b) => a - b),
      [0, 0, 25],
    );
    assert.deepEqual(await snapshot(app, site.siteId), before);
  });

  test('the sweep scheduler exists once, and its job folds in hours no job was enqueued for', async () => {
    const schedulers = await app.workers!.context.queues.get(ROLLUP_QUEUE).getJobSchedulers();
    assert.deepEqual(
      schedulers.map((s) => [s.key, s.every]),
      [['rollup-sweep', 30_000]],
    );
    await markAllDirty(app, site.siteId);
    const swept = await rollupWorker.handlers.rollupSweep({}, { id: 'sweep-test' } as Job, app.workers!.context);
    assert.equal(swept, 1);
    await waitForRollups(app, site.siteId);
  });
});
