import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ModelAsker } from '../../src/geo/ask.ts';
import { JOBS } from '../../src/queues/catalog.ts';
import { insertChannel } from '../../src/relay/repo.ts';
import { createCredential } from '../helpers/fixtures.ts';
import { startFakeModel, type FakeModel, type Scripted } from './fake-model.ts';
import { eventually } from '../helpers/eventually.ts';
import { geoFixture, type GeoFixture } from './setup.ts';

const P1 = 'What is the best AI writing tool?';
const P2 = 'How do I write a blog post faster?';

/**
 * The scripted answers, chosen so every metric has a distinct, hand-computed value:
 * alpha/P1 names Inkwell then the brand (position 2) and cites the site; alpha/P2 names only a
 * competitor; beta/P1 names the brand first; beta/P2 names nobody and cites another site.
 */
const SCRIPT: Record<string, Scripted> = {
  [`geo-alpha ${P1}`]: {
    text: 'Top picks: Inkwell is popular, and Acme Writer (https://acme.example/features) is great. Compare at https://www.review.example/top?utm_source=chatgpt.com.',
    annotations: ['https://www.acme.example/features?utm_source=openai', 'https://news.example/story#top'],
  },
  [`geo-alpha ${P2}`]: { text: 'Outline first, then draft. QuillBot can paraphrase.' },
  [`geo-beta ${P1}`]: { text: 'Acme is the best; Inkwell AI is second. Acmecorp is unrelated.' },
  [`geo-beta ${P2}`]: { text: 'Try https://blog.example/tips/ for tips.' },
};

let fx: GeoFixture;
let native: FakeModel;
let chatOnly: FakeModel;
let broken: FakeModel;

before(async () => {
  fx = await geoFixture();
  const script = (model: string, prompt: string): Scripted => SCRIPT[`${model} ${prompt}`] ?? { status: 500 };
  native = await startFakeModel(script);
  chatOnly = await startFakeModel(script);
  broken = await startFakeModel(() => ({ status: 503 }));
  const channel = (name: string, baseUrl: string, models: string[], protocols: ('responses' | 'chat')[]) =>
    insertChannel(fx.app.db, { name, baseUrl, apiKey: null, models, protocols, priority: 0, weight: 1 });
  await channel('native', native.base, ['geo-alpha'], ['responses']);
  // Answers of a chat-only channel reach GEO through the relay's Responses conversion.
  await channel('chat-only', chatOnly.base, ['geo-beta'], ['chat']);
  await channel('broken', broken.base, ['geo-broken'], ['responses']);
});
after(async () => {
  await fx.app.close();
  await Promise.all([native.close(), chatOnly.close(), broken.close()]);
});

const CONFIG = {
  brand: { name: 'Acme Writer', aliases: ['Acme'] },
  competitors: [{ name: 'Inkwell', aliases: ['Inkwell AI'] }, { name: 'QuillBot' }],
  models: ['geo-alpha', 'geo-beta', 'geo-broken'],
  locale: 'en-US',
};

async function runToEnd(): Promise<any> {
  const r = await fx.geo('POST', 'runs', { body: {} });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.status, 'queued');
  return eventually(
    async () => {
      const runs = await fx.geo('GET', 'runs');
      const run = runs.body.data.find((x: any) => x.id === r.body.id);
      return ['succeeded', 'partial', 'failed'].includes(run?.status) ? run : undefined;
    },
    20_000,
    'the run to finish',
  );
}

const rate = (numerator: number, denominator: number) => ({
  value: denominator ? numerator / denominator : null,
  numerator,
  denominator,
});

test('configuration is validated strictly, models must exist in the relay, and a run needs prompts', async () => {
  let r = await fx.geo('GET', 'config');
  assert.deepEqual(r.body, { data: null });
  r = await fx.geo('POST', 'runs', { body: {} });
  assert.equal(r.status, 409);
  assert.equal(r.body.code, 'geo_not_configured');

  r = await fx.geo('PUT', 'config', {
    body: {
      brand: { name: '', extra: 1 },
      competitors: [{ name: 'acme writer' }],
      models: ['Geo-Alpha', 'geo-alpha', 'geo-alpha'],
      locale: 'english!',
      schedule: { cron: '* * * * *' },
      colour: 'red',
    },
  });
  assert.equal(r.status, 400, r.text);
  assert.match(r.headers.get('content-type')!, /^application\/problem\+json/);
  const paths = r.body.errors.map((e: any) => e.path).sort();
  assert.deepEqual(paths, ['/brand/extra', '/brand/name', '/colour', '/locale', '/models/2', '/schedule/cron']);

  r = await fx.geo('PUT', 'config', { body: { ...CONFIG, competitors: [{ name: 'acme' }] } });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body.errors, [
    { path: '/competitors/0/name', message: '"acme" is already used at /brand/aliases/0' },
  ]);

  r = await fx.geo('PUT', 'config', { body: { ...CONFIG, models: ['geo-alpha', 'Geo-Beta', 'nope'] } });
  assert.equal(r.status, 400);
  assert.deepEqual(
    r.body.errors.map((e: any) => e.path),
    ['/models/1', '/models/2'],
  );
  assert.match(r.body.errors[0].message, /did you mean 'geo-beta'/);

  r = await fx.geo('PUT', 'config', { body: { ...CONFIG, schedule: { cron: '0 6 * * *', tz: 'Mars/Olympus' } } });
  assert.deepEqual(r.body.errors, [{ path: '/schedule/tz', message: 'must be an IANA time zone' }]);

  r = await fx.geo('PUT', 'config', { body: CONFIG });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.competitors, [
    { name: 'Inkwell', aliases: ['Inkwell AI'] },
    { name: 'QuillBot', aliases: [] },
  ]);
  assert.equal(r.body.schedule, null);

  r = await fx.geo('POST', 'runs', { body: {} });
  assert.equal(r.body.code, 'geo_not_configured');
  assert.match(r.body.detail, /prompts/);
  r = await fx.geo('POST', 'prompts', { body: { text: 'hi', tags: [] } });
  assert.deepEqual(r.body.errors.map((e: any) => e.path).sort(), ['/tags', '/text']);
});

test('config and prompts are session-only; runs need geo:run; evidence needs geo:evidence:read', async () => {
  const reader = await createCredential(fx.app.url, fx.account, fx.siteId, 'read', ['geo:read', 'geo:run']);
  const bearer = { bearer: reader, session: undefined };
  let r = await fx.geo('PUT', 'config', { ...bearer, body: CONFIG });
  assert.equal(r.status, 403);
  assert.equal(r.body.code, 'insufficient_scope');
  r = await fx.geo('POST', 'prompts', { ...bearer, body: { text: P1 } });
  assert.equal(r.status, 403);
  r = await fx.geo('GET', 'answers', bearer);
  assert.equal(r.status, 403);
  assert.match(r.body.detail, /geo:evidence:read/);
  r = await fx.geo('GET', 'overview', bearer);
  assert.equal(r.status, 200);
  const evidence = await createCredential(fx.app.url, fx.account, fx.siteId, 'read', ['geo:read', 'geo:evidence:read']);
  r = await fx.geo('GET', 'citations', { bearer: evidence, session: undefined });
  assert.equal(r.status, 200);
  r = await fx.geo('POST', 'runs', { bearer: evidence, session: undefined, body: {} });
  assert.equal(r.status, 403);
  r = await fx.geo('GET', 'overview', { session: undefined });
  assert.equal(r.status, 401);
});

test('a run asks every prompt of every model; a failing model fails its answers and leaves the run partial', async () => {
  for (const text of [P1, P2]) {
    const r = await fx.geo('POST', 'prompts', { body: { text } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.created, true);
  }
  const again = await fx.geo('POST', 'prompts', { body: { text: P1 } });
  assert.equal(again.body.created, false);
  // Stored text is exactly what was sent, so padding is refused rather than trimmed away.
  const padded = await fx.geo('POST', 'prompts', { body: { text: `  ${P1} ` } });
  assert.equal(padded.status, 400, padded.text);
  assert.deepEqual(
    padded.body.errors.map((e: { path: string }) => e.path),
    ['/text'],
  );
  assert.equal((await fx.geo('GET', 'prompts')).body.pagination.total, 2);

  const run = await runToEnd();
  assert.equal(run.status, 'partial');
  assert.deepEqual(run.answers, { total: 6, succeeded: 4, failed: 2, pending: 0 });
  assert.equal(run.prompts, 2);
  assert.equal(run.trigger, 'manual');
  // The Responses request went to the chat-only channel as chat completions.
  assert.deepEqual(
    chatOnly.received.map((x) => x.path),
    ['/v1/chat/completions', '/v1/chat/completions'],
  );
  assert.equal(broken.received.length, 2);

  const answers = (await fx.geo('GET', `answers?run_id=${run.id}&limit=200`)).body;
  assert.equal(answers.pagination.total, 6);
  const by = (model: string, prompt: string) => answers.data.find((a: any) => a.model === model && a.prompt === prompt);
  const a1 = by('geo-alpha', P1);
  assert.deepEqual(a1.mentions, [
    { name: 'Inkwell', kind: 'competitor', position: 1, count: 1 },
    { name: 'Acme Writer', kind: 'brand', position: 2, count: 1 },
  ]);
  assert.deepEqual(a1.brand, { mentioned: true, position: 2 });
  assert.deepEqual(a1.citations, [
    { url: 'https://acme.example/features', domain: 'acme.example', source: 'text', own_domain: true },
    { url: 'https://news.example/story', domain: 'news.example', source: 'annotation', own_domain: false },
    { url: 'https://www.acme.example/features', domain: 'acme.example', source: 'annotation', own_domain: true },
    { url: 'https://www.review.example/top', domain: 'review.example', source: 'text', own_domain: false },
  ]);
  // "Acmecorp" is another word; "Inkwell AI" is Inkwell's alias, counted once.
  assert.deepEqual(by('geo-beta', P1).mentions, [
    { name: 'Acme Writer', kind: 'brand', position: 1, count: 1 },
    { name: 'Inkwell', kind: 'competitor', position: 2, count: 1 },
  ]);
  assert.deepEqual(by('geo-beta', P2).citations, [
    { url: 'https://blog.example/tips', domain: 'blog.example', source: 'text', own_domain: false },
  ]);
  const failed = by('geo-broken', P1);
  assert.equal(failed.status, 'failed');
  assert.match(failed.error, /503/);
  assert.equal(failed.text, null);

  const overview = (await fx.geo('GET', 'overview')).body;
  assert.deepEqual(overview.data.overall, {
    answers: 4,
    mention_rate: rate(2, 4),
    share_of_voice: rate(2, 3),
    citation_rate: rate(1, 2),
    average_position: 1.5,
  });
  assert.deepEqual(overview.data.models, {
    'geo-alpha': {
      answers: 2,
      mention_rate: rate(1, 2),
      share_of_voice: rate(1, 2),
      citation_rate: rate(1, 1),
      average_position: 2,
    },
    'geo-beta': {
      answers: 2,
      mention_rate: rate(1, 2),
      share_of_voice: rate(1, 1),
      citation_rate: rate(0, 1),
      average_position: 1,
    },
    'geo-broken': {
      answers: 0,
      mention_rate: rate(0, 0),
      share_of_voice: rate(0, 0),
      citation_rate: rate(0, 0),
      average_position: null,
    },
  });
  assert.deepEqual(overview.data.entities, [
    { name: 'Acme Writer', kind: 'brand', answers: 2, mention_rate: rate(2, 4), average_position: 1.5 },
    { name: 'Inkwell', kind: 'competitor', answers: 2, mention_rate: rate(2, 4), average_position: 1.5 },
    { name: 'QuillBot', kind: 'competitor', answers: 1, mention_rate: rate(1, 4), average_position: 1 },
  ]);
  assert.deepEqual(overview.data.coverage, {
    runs: { succeeded: 0, partial: 1, failed: 0, in_progress: 0, rate: rate(0, 1) },
    models: { configured: CONFIG.models, answered: ['geo-alpha', 'geo-beta'], rate: rate(2, 3) },
  });

  // A second run without the broken model succeeds: the same answers again, one run of two whole.
  assert.equal((await fx.geo('PUT', 'config', { body: { ...CONFIG, models: ['geo-alpha', 'geo-beta'] } })).status, 200);
  const second = await runToEnd();
  assert.equal(second.status, 'succeeded');
  const after = (await fx.geo('GET', 'overview')).body.data;
  assert.deepEqual(after.overall, {
    answers: 8,
    mention_rate: rate(4, 8),
    share_of_voice: rate(4, 6),
    citation_rate: rate(2, 4),
    average_position: 1.5,
  });
  assert.deepEqual(after.coverage.runs, { succeeded: 1, partial: 1, failed: 0, in_progress: 0, rate: rate(1, 2) });
  assert.deepEqual(after.coverage.models, {
    configured: ['geo-alpha', 'geo-beta'],
    answered: ['geo-alpha', 'geo-beta'],
    rate: rate(2, 2),
  });

  const citations = (await fx.geo('GET', 'citations?domain=www.acme.example')).body;
  assert.deepEqual(
    citations.data.map((c: any) => [c.url, c.answers, c.models]),
    [
      ['https://acme.example/features', 2, ['geo-alpha']],
      ['https://www.acme.example/features', 2, ['geo-alpha']],
    ],
  );
  assert.equal((await fx.geo('GET', 'citations?limit=1')).body.pagination.next_offset, 1);

  // Trends cut days in the asked time zone: every answer falls on its local date there.
  const answeredAt = new Date(a1.answered_at);
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Kiritimati' }).format(answeredAt);
  const from = new Date(answeredAt.getTime() - 2 * 86_400_000).toISOString();
  const to = new Date(answeredAt.getTime() + 2 * 86_400_000).toISOString();
  const trends = (await fx.geo('GET', `trends?tz=Pacific/Kiritimati&from=${from}&to=${to}`)).body;
  assert.equal(trends.data.length, 5);
  const today = trends.data.find((d: any) => d.day === day);
  assert.deepEqual(today.overall, after.overall);
  assert.deepEqual(today.models['geo-beta'], {
    answers: 4,
    mention_rate: rate(2, 4),
    share_of_voice: rate(2, 2),
    citation_rate: rate(0, 2),
    average_position: 1,
  });
  assert.deepEqual(
    trends.data.filter((d: any) => d.day !== day).map((d: any) => d.overall.answers),
    [0, 0, 0, 0],
  );
});

test('GEO reads refuse malformed queries with 400 naming the parameter', async () => {
  let r = await fx.geo('GET', 'trends?tz=Nowhere/Land&from=yesterday');
  assert.equal(r.status, 400);
  assert.deepEqual(r.body.errors.map((e: any) => e.path).sort(), ['query.from', 'query.tz']);
  r = await fx.geo('GET', 'answers?run_id=42&limit=0&colour=red');
  assert.deepEqual(r.body.errors.map((e: any) => e.path).sort(), ['query.colour', 'query.limit', 'query.run_id']);
  r = await fx.geo('GET', 'overview?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z');
  assert.deepEqual(r.body.errors, [{ path: 'query.to', message: 'must be after from' }]);
});

test('a schedule installs a BullMQ job scheduler whose slots become scheduled runs, and clearing it removes it', async () => {
  const queue = fx.app.door.app.queues.get(JOBS.geoScheduledRun.queue);
  const schedulerId = JOBS.geoScheduledRun.jobId({ site_id: fx.siteId });
  const r = await fx.geo('PUT', 'config', {
    body: { ...CONFIG, models: ['geo-alpha'], schedule: { cron: '0 6 * * *', tz: 'Europe/Paris' } },
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.schedule, { cron: '0 6 * * *', tz: 'Europe/Paris' });
  const scheduler = await queue.getJobScheduler(schedulerId);
  assert.equal(scheduler?.pattern, '0 6 * * *');
  assert.equal(scheduler?.tz, 'Europe/Paris');

  // The scheduler's next slot waits as a delayed job; promoting it delivers the slot now.
  const next = (await queue.getJobs(['delayed'])).find((j) => j.name === JOBS.geoScheduledRun.name)!;
  const slot = new Date(next.opts.prevMillis!).toISOString();
  assert.match(slot, /T0[45]:00:00.000Z$/, 'six in the morning in Paris');
  await next.promote();
  const run = await eventually(
    async () => {
      const runs = (await fx.geo('GET', 'runs')).body.data;
      const s = runs.find((x: any) => x.trigger === 'schedule');
      return s && s.status === 'succeeded' ? s : undefined;
    },
    20_000,
    'the scheduled run',
  );
  assert.equal(run.scheduled_for, slot);
  assert.deepEqual(run.models, ['geo-alpha']);
  assert.deepEqual(run.answers, { total: 2, succeeded: 2, failed: 0, pending: 0 });

  await fx.geo('PUT', 'config', { body: { ...CONFIG, models: ['geo-alpha'], schedule: null } });
  assert.equal(await queue.getJobScheduler(schedulerId), undefined);
});

test('the asker holds each channel to its concurrency, whatever the number of questions', async () => {
  const slow = await startFakeModel(() => ({ text: 'ok' }), { delayMs: 60 });
  try {
    await insertChannel(fx.app.db, {
      name: 'slow',
      baseUrl: slow.base,
      apiKey: null,
      models: ['geo-slow'],
      protocols: ['responses'],
      priority: 0,
      weight: 1,
    });
    const asker = new ModelAsker(fx.app.db, fx.app.door.app.log, { channelConcurrency: 2 });
    try {
      const answers = await Promise.all(Array.from({ length: 7 }, (_, i) => asker.ask('geo-slow', `q${i}`, 'en')));
      assert.deepEqual(
        answers.map((a) => a.text),
        Array(7).fill('ok'),
      );
      assert.equal(slow.received.length, 7);
      assert.equal(slow.maxInflight, 2);
    } finally {
      await asker.close();
    }
  } finally {
    await slow.close();
  }
});
