import assert from 'node:assert/strict';
import type { Resource } from '../../src/auth/scopes.ts';
import { call } from '../helpers/http.ts';

const DAY = 86_400_000;

/**
 * Deterministic activity of a small product over `days` days ending now: visits from several
 * channels, registrations, activations and paid orders (USD and EUR), payments, subscriptions,
 * a campaign with spend. Returns the records per family, ready for the ingest API.
 */
export function productActivity(days: number, now = Date.now()): Partial<Record<Resource, Record<string, unknown>[]>> {
  const events: Record<string, unknown>[] = [];
  const orders: Record<string, unknown>[] = [];
  const payments: Record<string, unknown>[] = [];
  const subscriptions: Record<string, unknown>[] = [];
  // chatgpt.com: visits an AI assistant sent (geo/traffic, the acquisition page's AI table).
  const channels = ['search', 'social', 'email', 'direct', 'chatgpt.com'];
  const start = now - days * DAY;
  const at = (t: number) => new Date(Math.floor(t / 60_000) * 60_000).toISOString();
  for (let d = 0; d < days; d++) {
    const dayStart = start + d * DAY;
    const visitors = 8 + ((d * 7) % 11);
    for (let v = 0; v < visitors; v++) {
      const user = `u${d}_${v}`;
      const t = dayStart + (v + 1) * (DAY / (visitors + 2));
      const channel = channels[(d + v) % channels.length]!;
      events.push({
        event_id: `visit_${d}_${v}`,
        event_type: 'visit',
        occurred_at: at(t),
        external_user_id: user,
        session_id: `s${d}_${v}`,
        campaign_id: channel === 'social' ? 'cmp_launch' : undefined,
        properties: { channel, device: v % 3 ? 'desktop' : 'mobile' },
      });
      if (v % 2 === 0)
        events.push({
          event_id: `reg_${d}_${v}`,
          event_type: 'registration_completed',
          occurred_at: at(t + 60_000),
          external_user_id: user,
        });
      if (v % 4 === 0)
        events.push({
          event_id: `act_${d}_${v}`,
          event_type: 'activation_completed',
          occurred_at: at(t + 120_000),
          external_user_id: user,
        });
      if (v % 8 === 0) {
        const currency = v % 16 === 0 ? 'USD' : 'EUR';
        events.push({
          event_id: `paid_${d}_${v}`,
          event_type: 'order_paid',
          occurred_at: at(t + 180_000),
          external_user_id: user,
        });
        orders.push({
          order_id: `ord_${d}_${v}`,
          occurred_at: at(t + 180_000),
          external_user_id: user,
          amount_minor: 1999,
          currency,
          status: 'paid',
          plan_id: 'pro',
        });
        payments.push({
          payment_id: `pay_${d}_${v}`,
          order_id: `ord_${d}_${v}`,
          occurred_at: at(t + 180_000),
          external_user_id: user,
          amount_minor: 1999,
          currency,
          status: 'succeeded',
        });
        subscriptions.push({
          subscription_id: `sub_${d}_${v}`,
          occurred_at: at(t + 180_000),
          external_user_id: user,
          plan_id: 'pro',
          status: 'active',
          period_start: at(t + 180_000),
          period_end: at(t + 180_000 + 30 * DAY),
          amount_minor: 1999,
          currency,
        });
      }
      // Returning users keep the retention grid alive.
      if (d > 7 && v < 3)
        events.push({
          event_id: `usage_${d}_${v}`,
          event_type: 'usage',
          occurred_at: at(t + 240_000),
          external_user_id: `u${d - 7}_${v * 2}`,
        });
    }
  }
  const campaigns = [
    {
      campaign_id: 'cmp_launch',
      occurred_at: at(start),
      name: 'Launch week',
      channel: 'social',
      status: 'active',
      starts_at: at(start),
    },
  ];
  const expenses = [
    {
      expense_id: 'exp_launch',
      occurred_at: at(start),
      campaign_id: 'cmp_launch',
      amount_minor: 50_000,
      currency: 'USD',
      period_start: at(start),
      period_end: at(now),
      cost_scope: 'advertising',
    },
  ];
  return { campaigns, expenses, events, orders, payments, subscriptions };
}

/** Ingests every family through the API in batches of at most 500, waiting for each to complete. */
export async function ingestActivity(
  base: string,
  siteId: string,
  ingestKey: string,
  activity: ReturnType<typeof productActivity>,
): Promise<void> {
  for (const [resource, records] of Object.entries(activity) as [Resource, Record<string, unknown>[]][]) {
    for (let i = 0; i < records.length; i += 500) {
      const batchId = `seed_${resource}_${i}`;
      const body = {
        schema_version: `${resource}.v1`,
        batch_id: batchId,
        records: records.slice(i, i + 500).map((r) => ({ source: 'site_backend', ...r })),
      };
      let r = await call(base, 'POST', `/api/v1/sites/${siteId}/ingest/${resource}`, { bearer: ingestKey, body });
      const deadline = Date.now() + 60_000;
      while (r.status === 202 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        r = await call(base, 'GET', `/api/v1/sites/${siteId}/ingest/receipts/${batchId}?resource=${resource}`, {
          bearer: ingestKey,
        });
        if (r.body.status !== 'queued') break;
      }
      assert.equal(r.body.status, 'completed', r.text);
    }
  }
}
