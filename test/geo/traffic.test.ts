import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createCredential } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import { geoFixture, type GeoFixture } from './setup.ts';

let fx: GeoFixture;

before(async () => {
  fx = await geoFixture({ workers: ['ingest'] });
  const key = await createCredential(fx.app.url, fx.account, fx.siteId, 'ingest', [
    'ingest:events:write',
    'ingest:campaigns:write',
  ]);
  const ingest = async (resource: string, records: object[]) => {
    const r = await call(fx.app.url, 'POST', `/api/v1/sites/${fx.siteId}/ingest/${resource}`, {
      bearer: key,
      body: { schema_version: `${resource}.v1`, batch_id: `${resource}-1`, records },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'completed');
  };
  const campaign = (campaign_id: string, name: string) => ({
    campaign_id,
    name,
    channel: 'referral',
    status: 'active',
    starts_at: '2026-11-01T00:00:00Z',
    source: 'manual',
    occurred_at: '2026-11-01T00:00:00Z',
  });
  await ingest('campaigns', [campaign('c-gpt', 'chatgpt'), campaign('c-launch', 'Claude launch')]);
  let n = 0;
  const visit = (at: string, extra: object, type = 'visit') => ({
    event_id: `e${++n}`,
    event_type: type,
    occurred_at: at,
    source: 'client_sdk',
    ...extra,
  });
  const D1 = '2026-11-10T12:00:00Z';
  const D2 = '2026-11-11T12:00:00Z';
  await ingest('events', [
    visit(D1, { properties: { channel: 'chatgpt.com' } }),
    visit(D1, { properties: { channel: 'https://www.perplexity.ai/search?q=acme' } }),
    visit(D1, { properties: { channel: 'CHATGPT' } }),
    visit(D2, { properties: { channel: 'utm_source=claude.ai&utm_medium=referral' } }),
    visit(D2, { campaign_id: 'c-gpt' }),
    visit(D2, { properties: { channel: 'gemini' } }),
    // Not assistants: a campaign named after one, another engine, a non-visit, a look-alike host.
    visit(D2, { campaign_id: 'c-launch' }),
    visit(D2, { properties: { channel: 'google' } }),
    visit(D2, { properties: { channel: 'copilot.microsoft.com' } }, 'registration_completed'),
    visit(D2, { properties: { channel: 'notchatgpt.com' } }),
    // 23:30 UTC on the 10th is the 11th in Shanghai.
    visit('2026-11-10T23:30:00Z', { properties: { channel: 'copilot.microsoft.com' } }),
  ]);
});
after(() => fx.app.close());

const OTHERS = ['deepseek', 'grok', 'meta_ai', 'mistral', 'kimi', 'doubao', 'qwen', 'yuanbao'];
const zero = {
  chatgpt: 0,
  perplexity: 0,
  claude: 0,
  gemini: 0,
  copilot: 0,
  ...Object.fromEntries(OTHERS.map((a) => [a, 0])),
};

test('traffic counts visits an AI assistant sent, per assistant and per day in the report time zone', async () => {
  const window = 'from=2026-11-10T00:00:00Z&to=2026-11-12T00:00:00Z';
  let r = await fx.geo('GET', `traffic?${window}&tz=UTC`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.data.visits, 7);
  assert.deepEqual(
    r.body.data.assistants.map((a: any) => ({ assistant: a.assistant, visits: a.visits })),
    [
      { assistant: 'chatgpt', visits: 3 },
      { assistant: 'perplexity', visits: 1 },
      { assistant: 'claude', visits: 1 },
      { assistant: 'gemini', visits: 1 },
      { assistant: 'copilot', visits: 1 },
      ...OTHERS.map((assistant) => ({ assistant, visits: 0 })),
    ],
  );
  assert.deepEqual(r.body.data.days, [
    { day: '2026-11-10', visits: 4, assistants: { ...zero, chatgpt: 2, perplexity: 1, copilot: 1 } },
    { day: '2026-11-11', visits: 3, assistants: { ...zero, chatgpt: 1, claude: 1, gemini: 1 } },
  ]);

  r = await fx.geo('GET', `traffic?${window}&tz=Asia/Shanghai`);
  assert.deepEqual(
    r.body.data.days.map((d: any) => [d.day, d.visits, d.assistants.copilot]),
    [
      ['2026-11-10', 3, 0],
      ['2026-11-11', 4, 1],
      ['2026-11-12', 0, 0],
    ],
  );
  assert.deepEqual(r.body.window, {
    from: '2026-11-10T00:00:00.000Z',
    to: '2026-11-12T00:00:00.000Z',
    tz: 'Asia/Shanghai',
    days: 3,
  });
});
