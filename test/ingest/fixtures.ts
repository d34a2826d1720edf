import { RESOURCES, type Resource } from '../../src/auth/scopes.ts';
import { call, type Answer } from '../helpers/http.ts';
import { createAccount, createCredential, createSite, type TestAccount } from '../helpers/fixtures.ts';
import type { TestApp } from '../helpers/app.ts';

/** A valid record of each resource; `n` varies its id, `extra` overrides fields. */
export function sampleRecord(
  resource: Resource,
  n: number | string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const base = { source: 'site_backend', occurred_at: '2026-11-20T08:00:00+08:00' };
  const period = { period_start: '2026-11-01T00:00:00Z', period_end: '2026-12-01T00:00:00Z' };
  const byResource: Record<Resource, Record<string, unknown>> = {
    customers: { customer_id: `cus_${n}`, status: 'active', created_at: '2026-01-02T03:04:05Z' },
    events: {
      event_id: `evt_${n}`,
      event_type: 'visit',
      external_user_id: 'user_1',
      session_id: 'sess_1',
      properties: { channel: 'search', device: 'mobile', quantity: 2 },
    },
    orders: { order_id: `ord_${n}`, amount_minor: 1999, currency: 'USD', status: 'paid', plan_id: 'pro' },
    payments: {
      payment_id: `pay_${n}`,
      order_id: `ord_${n}`,
      amount_minor: 1999,
      currency: 'USD',
      status: 'succeeded',
    },
    refunds: { refund_id: `ref_${n}`, payment_id: `pay_${n}`, amount_minor: 500, currency: 'USD', status: 'succeeded' },
    subscriptions: {
      subscription_id: `sub_${n}`,
      external_user_id: 'user_1',
      plan_id: 'pro',
      status: 'active',
      ...period,
      amount_minor: 1999,
      currency: 'USD',
    },
    costs: { cost_id: `cost_${n}`, amount_minor: 12000, currency: 'USD', ...period, category: 'infrastructure' },
    campaigns: {
      campaign_id: `cmp_${n}`,
      name: 'Launch',
      channel: 'social',
      status: 'active',
      starts_at: '2026-11-01T00:00:00Z',
    },
    expenses: {
      expense_id: `exp_${n}`,
      campaign_id: 'cmp_1',
      amount_minor: 5000,
      currency: 'EUR',
      ...period,
      cost_scope: 'advertising',
    },
    observations: {
      observation_id: `obs_${n}`,
      target_ref: 'homepage',
      target_type: 'website',
      status: 'healthy',
      latency_ms: 120,
    },
    summaries: {
      summary_id: `sum_${n}`,
      metric: 'visits',
      ...period,
      value: 1234,
      unit: 'count',
      definition_version: 'v1',
    },
  };
  return { ...base, ...byResource[resource], ...extra };
}

export function batch(
  resource: Resource,
  batchId: string,
  records: readonly Record<string, unknown>[],
): Record<string, unknown> {
  return { schema_version: `${resource}.v1`, batch_id: batchId, records };
}

/** A site with one ingest credential (all ingest scopes) and one read credential (all record reads). */
export interface IngestSite {
  account: TestAccount;
  siteId: string;
  ingestKey: string;
  readKey: string;
}

export async function ingestSite(app: Pick<TestApp, 'url' | 'db'>): Promise<IngestSite> {
  const account = await createAccount(app.db);
  const siteId = await createSite(app.url, account);
  const ingestKey = await createCredential(app.url, account, siteId, 'ingest', [
    'ingest:receipt:read',
    ...RESOURCES.map((r) => `ingest:${r}:write`),
  ]);
  const readKey = await createCredential(app.url, account, siteId, 'read', [
    'customers:read',
    'events:read',
    'finance:read',
    'monitoring:read',
  ]);
  return { account, siteId, ingestKey, readKey };
}

export function postBatch(
  app: { url: string },
  site: IngestSite,
  resource: Resource,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return call(app.url, 'POST', `/api/v1/sites/${site.siteId}/ingest/${resource}`, {
    bearer: site.ingestKey,
    body,
    headers,
  });
}
