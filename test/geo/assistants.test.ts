import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ingest, view, waitForRollups } from '../analytics/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createCredential } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import { ingestSite, type IngestSite } from '../ingest/fixtures.ts';

/**
 * Users brought by AI assistants, and what they did. Every figure below is worked out by hand
 * from these records (window 2026-11-20 – 2026-11-23 UTC):
 * - u1: first touch a ChatGPT visit; registers (from ChatGPT) and activates; comes back from
 *   Perplexity, then orders and pays USD 2000 (last touch Perplexity); a failed payment too.
 * - u2: first touch the campaign named "deepseek"; registers; orders and pays CNY 500; visits
 *   from ChatGPT only after paying (so the last touch before the order is still DeepSeek).
 * - u3: first touch Google before the window; comes from claude.ai and registers; orders and
 *   pays USD 700 (last touch Claude, first touch not an assistant).
 * - u4 visits from grok.com; one anonymous ChatGPT visit.
 */
let app: TestApp;
let site: IngestSite;
let readKey: string;
const WINDOW = { from: '2026-11-20', to: '2026-11-23', tz: 'UTC' };

before(async () => {
  app = await startTestApp({ workers: ['ingest', 'rollup'] });
  site = await ingestSite(app);
  readKey = await createCredential(app.url, site.account, site.siteId, 'read', ['analytics:read', 'finance:read']);
  await ingest(app, site, 'campaigns', 'c-1', [
    {
      campaign_id: 'c-ds',
      name: 'deepseek',
      channel: 'referral',
      status: 'active',
      starts_at: '2026-11-01T00:00:00Z',
      occurred_at: '2026-11-01T00:00:00Z',
    },
  ]);
  let n = 0;
  const event = (type: string, at: string, user: string | null, extra: object = {}) => ({
    event_id: `e${++n}`,
    event_type: type,
    occurred_at: at,
    ...(user ? { external_user_id: user } : {}),
    ...(type === 'visit' ? { session_id: `s${n}` } : {}),
    ...extra,
  });
  const from = (channel: string) => ({ properties: { channel } });
  await ingest(app, site, 'events', 'e-1', [
    event('visit', '2026-11-20T10:00:00Z', 'u1', from('https://chatgpt.com/')),
    event('registration_completed', '2026-11-20T10:05:00Z', 'u1', from('chatgpt.com')),
    event('activation_completed', '2026-11-20T11:00:00Z', 'u1'),
    event('visit', '2026-11-21T09:00:00Z', 'u1', from('perplexity.ai')),
    event('visit', '2026-11-22T10:00:00Z', 'u1', from('chatgpt')),
    event('visit', '2026-11-20T12:00:00Z', 'u2', { campaign_id: 'c-ds' }),
    event('registration_completed', '2026-11-20T12:10:00Z', 'u2'),
    event('visit', '2026-11-22T09:00:00Z', 'u2', from('utm_source=chatgpt.com')),
    event('visit', '2026-11-19T08:00:00Z', 'u3', from('google')),
    event('visit', '2026-11-20T08:00:00Z', 'u3', from('https://claude.ai/chat/abc')),
    event('registration_completed', '2026-11-20T08:05:00Z', 'u3'),
    event('visit', '2026-11-21T12:00:00Z', 'u4', from('grok.com')),
    event('visit', '2026-11-21T13:00:00Z', null, from('chatgpt.com')),
  ]);
  const order = (id: string, user: string, at: string, amount_minor: number, currency: string) => ({
    order_id: id,
    external_user_id: user,
    amount_minor,
    currency,
    status: 'paid',
    occurred_at: at,
  });
  await ingest(app, site, 'orders', 'o-1', [
    order('o1', 'u1', '2026-11-21T09:30:00Z', 2000, 'USD'),
    order('o2', 'u2', '2026-11-22T08:00:00Z', 500, 'CNY'),
    order('o3', 'u3', '2026-11-21T10:00:00Z', 700, 'USD'),
  ]);
  const payment = (
    id: string,
    o: string,
    user: string,
    at: string,
    amount_minor: number,
    currency: string,
    status = 'succeeded',
  ) => ({
    payment_id: id,
    order_id: o,
    external_user_id: user,
    amount_minor,
    currency,
    status,
    occurred_at: at,
  });
  await ingest(app, site, 'payments', 'p-1', [
    payment('p1', 'o1', 'u1', '2026-11-21T09:31:00Z', 2000, 'USD'),
    payment('p1f', 'o1', 'u1', '2026-11-21T09:29:00Z', 9999, 'USD', 'failed'),
    payment('p2', 'o2', 'u2', '2026-11-22T08:00:00Z', 500, 'CNY'),
    payment('p3', 'o3', 'u3', '2026-11-21T10:01:00Z', 700, 'USD'),
  ]);
  await waitForRollups(app, site.siteId);
});
after(() => app.close());

const none = { registrations: 0, activations: 0, paid_orders: 0, revenue: {} };
const noLast = { paid_orders: 0, revenue: {} };

test('geo/traffic: visits, visitors and what the users each AI assistant brought did, first and last touch', async () => {
  const qs = new URLSearchParams(WINDOW).toString();
  const r = await call(app.url, 'GET', `/api/v1/sites/${site.siteId}/geo/traffic?${qs}`, {
    session: site.account.session,
  });
  assert.equal(r.status, 200, r.text);
  const by = Object.fromEntries(r.body.data.assistants.map((a: any) => [a.assistant, a]));
  assert.deepEqual(by.chatgpt, {
    assistant: 'chatgpt',
    visits: 4,
    visitors: 2,
    first_touch: { registrations: 1, activations: 1, paid_orders: 1, revenue: { USD: 2000 } },
    last_touch: noLast,
  });
  assert.deepEqual(by.perplexity, {
    assistant: 'perplexity',
    visits: 1,
    visitors: 1,
    first_touch: none,
    last_touch: { paid_orders: 1, revenue: { USD: 2000 } },
  });
  assert.deepEqual(by.claude, {
    assistant: 'claude',
    visits: 1,
    visitors: 1,
    first_touch: none,
    last_touch: { paid_orders: 1, revenue: { USD: 700 } },
  });
  assert.deepEqual(by.deepseek, {
    assistant: 'deepseek',
    visits: 1,
    visitors: 1,
    first_touch: { registrations: 1, activations: 0, paid_orders: 1, revenue: { CNY: 500 } },
    last_touch: { paid_orders: 1, revenue: { CNY: 500 } },
  });
  assert.deepEqual(by.grok, { assistant: 'grok', visits: 1, visitors: 1, first_touch: none, last_touch: noLast });
  for (const id of ['gemini', 'copilot', 'kimi', 'doubao', 'qwen'])
    assert.deepEqual(by[id], { assistant: id, visits: 0, visitors: 0, first_touch: none, last_touch: noLast });
  assert.equal(r.body.data.visits, 8);
  assert.deepEqual(r.body.currencies, ['CNY', 'USD']);
  assert.deepEqual(
    r.body.data.days.map((d: any) => [d.day, d.visits]),
    [
      ['2026-11-20', 3],
      ['2026-11-21', 3],
      ['2026-11-22', 2],
    ],
  );
});

test('acquisition breaks its channel figures down by AI assistant', async () => {
  const r = await view(app, site.siteId, 'acquisition', readKey, WINDOW);
  assert.equal(r.status, 200, r.text);
  const row = (assistant: string, visits: number, registrations: number, paid_orders: number, revenue: object) => ({
    assistant,
    visits,
    registrations,
    activations: 0,
    paid_orders,
    revenue,
    spend: {},
    cac: {},
    roas: {},
  });
  // Visits and registrations by the event's own source; paid orders and revenue by the
  // user's first touch (the view's rules for every row).
  assert.deepEqual(r.body.data.assistants, [
    row('chatgpt', 4, 1, 1, { USD: 2000 }),
    row('perplexity', 1, 0, 0, {}),
    row('claude', 1, 0, 0, {}),
    row('deepseek', 1, 0, 1, { CNY: 500 }),
    row('grok', 1, 0, 0, {}),
  ]);
});
