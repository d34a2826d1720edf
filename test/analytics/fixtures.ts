import assert from 'node:assert/strict';
import { RESOURCES, type Resource } from '../../src/auth/scopes.ts';
import { rollupSite } from '../../src/analytics/rollup.ts';
import type { Db } from '../../src/db/connection.ts';
import type { TestApp } from '../helpers/app.ts';
import { call, type Answer } from '../helpers/http.ts';
import { batch, postBatch, type IngestSite } from '../ingest/fixtures.ts';
import { eventually } from '../helpers/eventually.ts';

/**
 * Ingests records of one family through the API, one batch, and expects it completed: at
 * once (200), or — on a machine too busy to apply it within the front door's wait (202) —
 * by its receipt, polled until a deadline.
 */
export async function ingest(
  app: TestApp,
  site: IngestSite,
  resource: Resource,
  batchId: string,
  records: readonly Record<string, unknown>[],
): Promise<void> {
  let r = await postBatch(
    app,
    site,
    resource,
    batch(
      resource,
      batchId,
      records.map((rec) => ({ source: 'site_backend', ...rec })),
    ),
  );
  if (r.status === 202) {
    r = await eventually(
      async () => {
        const receipt = await call(
          app.url,
          'GET',
          `/api/v1/sites/${site.siteId}/ingest/receipts/${batchId}?resource=${resource}`,
          { bearer: site.ingestKey },
        );
        return receipt.body.status === 'queued' ? undefined : receipt;
      },
      30_000,
      `batch ${batchId} to leave queued`,
    );
  }
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.status, 'completed', r.text);
}

/**
 * Waits until the site's rollups hold every ingested change: its dirty hours and pending
 * changes are deleted in the same transaction that writes the rollups, so none left means all
 * folded in.
 */
export async function waitForRollups(app: Pick<TestApp, 'db'>, siteId: string, timeoutMs = 20_000): Promise<void> {
  await eventually(
    async () => {
      const { n } = await app.db.one<{ n: number }>(
        `SELECT (SELECT count(*) FROM analytics_dirty WHERE site_id = $1)
           + (SELECT count(*) FROM analytics_pending_counts WHERE site_id = $1)
           + (SELECT count(*) FROM analytics_pending_users WHERE site_id = $1)
           + (SELECT count(*) FROM analytics_pending_keys WHERE site_id = $1)
           + (SELECT count(*) FROM analytics_pending_money WHERE site_id = $1) AS n`,
        [siteId],
      );
      return n === 0 ? true : undefined;
    },
    timeoutMs,
    `rollups of ${siteId} to have no pending hours`,
  );
}

export function view(
  app: Pick<TestApp, 'url'>,
  siteId: string,
  name: string,
  key: string,
  query: Record<string, string> = {},
): Promise<Answer> {
  const qs = new URLSearchParams(query).toString();
  return call(app.url, 'GET', `/api/v1/sites/${siteId}/analytics/${name}${qs ? `?${qs}` : ''}`, { bearer: key });
}

/** Every view, over windows that take every read path: whole UTC days, a zone off whole hours, ragged instants. */
const CHECKED_WINDOWS: Record<string, string>[] = [
  { from: '2026-10-22', to: '2026-11-22', tz: 'UTC' },
  { from: '2026-10-22', to: '2026-11-22', tz: 'Asia/Kathmandu' },
  { from: '2026-11-09T23:07:13.5Z', to: '2026-11-20T00:00:00.25Z', tz: 'America/New_York' },
];
const VIEWS = ['overview', 'acquisition', 'timeseries', 'finance', 'funnel', 'retention'];

/**
 * The answers of every view over the checked windows, without `freshness` (when the rollups were
 * computed, which a rebuild changes by design). `key` needs analytics:read and finance:read.
 */
export async function allViews(app: Pick<TestApp, 'url'>, siteId: string, key: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const w of CHECKED_WINDOWS)
    for (const name of VIEWS) {
      const r = await view(app, siteId, name, key, w);
      assert.equal(r.status, 200, r.text);
      const { freshness: _, ...rest } = r.body as Record<string, unknown>;
      out.push({ view: name, window: w, ...rest });
    }
  return out;
}

/**
 * Rebuilds a site's rollups from its raw records alone, by the rollup's definitions
 * (sql/analytics/rollup-counts.sql, rollup-sets.sql): drops every rollup row of the site and the
 * session starts and first touches they were counted with, marks every hour holding a record or
 * a subscription's first start, and folds. The fold rebuilds marked hours from the raw records
 * and derives the session starts and first touches of their events again.
 */
export async function rebuildFromScratch(db: Db, siteId: string): Promise<void> {
  await db.tx(async (t) => {
    for (const table of [
      'analytics_counts',
      'analytics_sets',
      'analytics_presence',
      'analytics_session_starts',
      'analytics_user_touch',
    ])
      await t.none('DELETE FROM $1:name WHERE site_id = $2', [table, siteId]);
    const hours = [...RESOURCES.map((r) => `SELECT occurred_at AS at FROM ingest_${r} WHERE site_id = $1`)];
    hours.push('SELECT started_at FROM analytics_subscription_starts WHERE site_id = $1');
    await t.none(
      `INSERT INTO analytics_dirty (site_id, hour) SELECT DISTINCT $1::uuid, date_trunc('hour', at, 'UTC') FROM (${hours.join(' UNION ALL ')}) x`,
      [siteId],
    );
  });
  await rollupSite(db, siteId);
}

/** Every view answers what a rebuild of the site's rollups from its raw records answers. */
export async function assertViewsMatchRebuild(app: Pick<TestApp, 'url'>, db: Db, siteId: string, key: string) {
  const views = await allViews(app, siteId, key);
  await rebuildFromScratch(db, siteId);
  assert.deepEqual(await allViews(app, siteId, key), views);
}
