import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rollupSite } from '../../src/analytics/rollup.ts';
import type { Resource } from '../../src/auth/scopes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createCredential } from '../helpers/fixtures.ts';
import { ingestSite, sampleRecord, type IngestSite } from '../ingest/fixtures.ts';
import { allViews, assertViewsMatchRebuild, ingest, view } from './fixtures.ts';

/**
 * Views read the rollups plus the changes not folded into them yet (migration 0017). Whatever
 * has been folded, every view must answer what a rebuild of the rollups from the raw records
 * answers, and a batch must count in a view asked right after its 200. The rollup worker does
 * not run here: the test folds when it chooses (rollupSite), so "pending" is every batch since.
 */
const at = (hhmm: string) => `2026-11-10T${hhmm}:00Z`;
const ev = (id: string, type: string, time: string, extra: Record<string, unknown> = {}) => ({
  event_id: id,
  event_type: type,
  occurred_at: at(time),
  ...extra,
});

describe('analytics views over rollups and pending changes', () => {
  let app: TestApp;
  let site: IngestSite;
  let key: string;

  before(async () => {
    app = await startTestApp({ workers: ['ingest'] });
    site = await ingestSite(app);
    key = await createCredential(app.url, site.account, site.siteId, 'read', ['analytics:read', 'finance:read']);
  });
  after(() => app.close());

  const send = (resource: Resource, id: string, records: Record<string, unknown>[]) =>
    ingest(app, site, resource, id, records);
  const overview = async () => {
    const r = await view(app, site.siteId, 'overview', key, { from: '2026-11-10', to: '2026-11-11', tz: 'UTC' });
    assert.equal(r.status, 200, r.text);
    return r.body.data as { visits: number; visitors: number; registrations: number; receipts: Record<string, number> };
  };
  const channels = async () => {
    const r = await view(app, site.siteId, 'acquisition', key, { from: '2026-11-10', to: '2026-11-11', tz: 'UTC' });
    return Object.fromEntries(
      (r.body.data.channels as { channel: string | null; visits: number; paid_orders: number }[]).map((c) => [
        c.channel ?? 'none',
        [c.visits, c.paid_orders],
      ]),
    );
  };
  const matchesRebuild = () => assertViewsMatchRebuild(app, app.db, site.siteId, key);

  test('a view asked right after the 200 counts the batch, distinct users included', async () => {
    await send('events', 'a', [
      ev('a1', 'visit', '10:20', { external_user_id: 'u1', session_id: 's1', properties: { channel: 'search' } }),
      ev('a2', 'visit', '10:40', { external_user_id: 'u1', session_id: 's1', properties: { channel: 'search' } }),
      ev('a3', 'registration_completed', '10:25', { external_user_id: 'u1', properties: { channel: 'search' } }),
      ev('a4', 'visit', '11:40', { external_user_id: 'u2', session_id: 's2', campaign_id: 'cmp_1' }),
      ev('a5', 'order_paid', '11:50', { external_user_id: 'u2' }),
      ev('a6', 'visit', '12:10', { external_user_id: 'u4' }),
      ev('a7', 'visit', '12:20'),
      ev('a8', 'usage', '13:00', { external_user_id: 'u3' }),
      ev('a9', 'activation_completed', '13:05', { external_user_id: 'u1' }),
    ]);
    // s1, s2, and two visits without a session; u1, u2, u4.
    const o = await overview();
    assert.deepEqual([o.visits, o.visitors, o.registrations], [4, 3, 1]);

    await send('campaigns', 'c', [sampleRecord('campaigns', 1, { channel: 'email', occurred_at: at('09:00') })]);
    await send('orders', 'o', [sampleRecord('orders', 1, { external_user_id: 'u5', occurred_at: at('12:00') })]);
    await send('payments', 'p', [
      sampleRecord('payments', 1, { external_user_id: 'u5', amount_minor: 2500, occurred_at: at('12:01') }),
    ]);
    await send('refunds', 'r', [sampleRecord('refunds', 1, { occurred_at: at('14:00') })]);
    await send('costs', 'k', [sampleRecord('costs', 1, { occurred_at: at('14:10') })]);
    await send('expenses', 'x', [sampleRecord('expenses', 1, { occurred_at: at('14:20') })]);
    await send('observations', 'b', [sampleRecord('observations', 1, { occurred_at: at('14:30') })]);
    await send('subscriptions', 's', [
      sampleRecord('subscriptions', 1, { occurred_at: at('14:40'), period_start: at('14:40') }),
      sampleRecord('subscriptions', 2, { occurred_at: at('14:50'), status: 'cancelled' }),
    ]);
    await send('customers', 'u', [sampleRecord('customers', 1, { occurred_at: at('15:00') })]);
    assert.deepEqual((await overview()).receipts, { USD: 2500 });
    // Nothing folded yet: every figure comes from the pending changes.
    await matchesRebuild();
  });

  test('a later visit of a session moves its start, and an earlier touch moves a user’s money, before and after a fold', async () => {
    // u5 paid with no touch yet: unattributed.
    assert.deepEqual((await channels()).none, [2, 1]);
    await send('events', 'b', [
      // Earlier than a1: s1 now starts here, on social.
      ev('b1', 'visit', '09:50', { external_user_id: 'u1', session_id: 's1', properties: { channel: 'social' } }),
      // u5's first touch: their order and payment move to referral.
      ev('b2', 'visit', '08:00', { external_user_id: 'u5', session_id: 's5', properties: { channel: 'referral' } }),
      ev('b3', 'visit', '10:05', { external_user_id: 'u6', session_id: 's2' }),
    ]);
    const after = await overview();
    assert.equal(after.visits, 5); // s5 is new; b1 and b3 join s1 and s2
    assert.equal(after.visitors, 5); // u5 and u6 are new
    const byChannel = await channels();
    assert.deepEqual(byChannel.social, [1, 0]);
    assert.deepEqual(byChannel.search, [0, 0]); // a3's registration keeps the row
    assert.deepEqual(byChannel.referral, [1, 1]);

    // Folded, the same answers; folded and then more pending, the same as a rebuild.
    const pending = await allViews(app, site.siteId, key);
    await rollupSite(app.db, site.siteId);
    assert.deepEqual(await allViews(app, site.siteId, key), pending);
    await send('events', 'c', [
      ev('c1', 'visit', '07:30', { external_user_id: 'u5', session_id: 's5', campaign_id: 'cmp_1' }),
      ev('c2', 'visit', '09:00', { external_user_id: 'u7', session_id: 's7', properties: { channel: 'social' } }),
    ]);
    assert.deepEqual((await channels()).email, [1, 1]); // cmp_1's channel: s5 and u5's money moved there
    await matchesRebuild();
  });

  test('a revised record takes back what it counted, once folded', async () => {
    // a6 (a visit of its own) becomes usage; p1 fails; a4 moves to another day and user.
    await send('events', 'rev-e', [
      ev('a6', 'usage', '12:10', { external_user_id: 'u4', revision: 2 }),
      {
        ...ev('a4', 'visit', '00:00'),
        occurred_at: '2026-11-12T01:00:00Z',
        external_user_id: 'u8',
        session_id: 's2',
        revision: 2,
      },
    ]);
    await send('payments', 'rev-p', [
      sampleRecord('payments', 1, {
        external_user_id: 'u5',
        amount_minor: 2500,
        occurred_at: at('12:01'),
        status: 'failed',
        revision: 2,
      }),
    ]);
    await rollupSite(app.db, site.siteId);
    const o = await overview();
    // s1, s2 (from b3), s5, s7 and a7; a6 is no visit, and u2 and u4 no longer visited that day.
    assert.equal(o.visits, 5);
    assert.equal(o.visitors, 4);
    assert.deepEqual(o.receipts, {});
    await matchesRebuild();
  });
});
