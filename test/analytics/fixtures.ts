import assert from 'node:assert/strict';
import type { Resource } from '../../src/auth/scopes.ts';
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
