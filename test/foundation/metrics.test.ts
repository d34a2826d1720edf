import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { hashSecret } from '../../src/auth/secrets.ts';
import { recordJobDuration } from '../../src/metrics/job-durations.ts';
import { enqueue, JOBS, USAGE_QUEUE } from '../../src/queues/catalog.ts';
import { newRelayKey } from '../../src/relay/keys.ts';
import { insertKey, NO_KEY_SETTINGS } from '../../src/relay/repo.ts';
import { startWorkers } from '../../workers/run.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/eventually.ts';
import { createAccount, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';

let app: TestApp;
let owner: TestAccount;
before(async () => {
  app = await startTestApp({ env: { METRICS_TOKEN: 'metrics-token-0123456789' } });
  owner = await createAccount(app.db);
});
after(() => app.close());

function sample(text: string, name: string, labels: Record<string, string>): number | null {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (want.every((w) => line.includes(w))) return Number(line.split(' ').pop());
  }
  return null;
}

const scrape = async () => {
  const r = await call(app.url, 'GET', '/metrics', { bearer: 'metrics-token-0123456789' });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
  return r.text;
};

test('/metrics needs the token when one is configured', async () => {
  assert.equal((await call(app.url, 'GET', '/metrics')).status, 401);
  assert.equal((await call(app.url, 'GET', '/metrics', { bearer: 'wrong-token-0123456789' })).status, 401);
});

test('HTTP requests are counted by route pattern and status, with latency histograms', async () => {
  const before = await scrape();
  const base = sample(before, 'radar_http_requests_total', { route: '/api/v1/me', method: 'GET', status: '200' }) ?? 0;
  for (let i = 0; i < 3; i++) await call(app.url, 'GET', '/api/v1/me', { session: owner.session });
  await call(app.url, 'GET', '/api/v1/me');
  const text = await scrape();
  assert.equal(
    sample(text, 'radar_http_requests_total', { route: '/api/v1/me', method: 'GET', status: '200' }),
    base + 3,
  );
  assert.ok(
    (sample(text, 'radar_http_requests_total', { route: '/api/v1/me', method: 'GET', status: '401' }) ?? 0) >= 1,
  );
  assert.ok(
    (sample(text, 'radar_http_request_duration_seconds_count', { route: '/api/v1/me', method: 'GET' }) ?? 0) >=
      base + 4,
  );
  await call(app.url, 'GET', '/api/v1/sites/5a1c3c1e-0000-4000-8000-000000000000/anything');
  assert.ok(
    (sample(await scrape(), 'radar_http_requests_total', { route: 'unmatched', status: '404' }) ?? 0) >= 1,
    'raw paths never become labels',
  );
});

test('pool usage, queue depth, and job durations recorded in Redis as a histogram are exported', async () => {
  await recordJobDuration(app.door.app.redis, app.config.QUEUE_PREFIX, 'ingest', 'completed', 0.03);
  await recordJobDuration(app.door.app.redis, app.config.QUEUE_PREFIX, 'ingest', 'completed', 3);
  const text = await scrape();
  assert.notEqual(sample(text, 'radar_pg_pool_connections', { state: 'total' }), null);
  assert.equal(sample(text, 'radar_queue_jobs', { queue: 'ingest', state: 'waiting' }), 0);
  assert.equal(
    sample(text, 'radar_job_duration_seconds_bucket', { queue: 'ingest', status: 'completed', le: '0.05' }),
    1,
  );
  assert.equal(
    sample(text, 'radar_job_duration_seconds_bucket', { queue: 'ingest', status: 'completed', le: '+Inf' }),
    2,
  );
  assert.equal(sample(text, 'radar_job_duration_seconds_count', { queue: 'ingest', status: 'completed' }), 2);
  assert.ok(
    Math.abs(sample(text, 'radar_job_duration_seconds_sum', { queue: 'ingest', status: 'completed' })! - 3.03) < 1e-9,
  );
});

test('the front door exports the durations of the jobs every worker process ran', async () => {
  const key = newRelayKey();
  const { id: keyId } = await insertKey(app.db, {
    ...NO_KEY_SETTINGS,
    name: 'metrics',
    keyHash: hashSecret(key),
    prefix: key.slice(0, 10),
    models: ['*'],
    accountId: null,
    group: 'default',
  });
  const row = () => ({
    id: randomUUID(),
    at: new Date().toISOString(),
    request_id: 'r',
    key_id: keyId,
    model: 'm',
    channel_id: null,
    endpoint: 'chat' as const,
    stream: false,
    status: 200,
    input_tokens: 1,
    output_tokens: 1,
    cached_tokens: null,
    reasoning_tokens: null,
    ttfb_ms: 1,
    duration_ms: 2,
    cost_nanos: null,
    currency: null,
    unpriced: false,
    site_id: null,
    customer: null,
  });
  const completed = async () =>
    sample(await scrape(), 'radar_job_duration_seconds_count', { queue: USAGE_QUEUE, status: 'completed' }) ?? 0;
  // Two worker processes one after the other, so each one's jobs are its own.
  for (const jobs of [2, 3]) {
    const before = await completed();
    const workers = await startWorkers(app.config, [USAGE_QUEUE]);
    try {
      for (let i = 0; i < jobs; i++) await enqueue(app.door.app.queues, JOBS.usageCalls, { rows: [row()] });
      await eventually(
        async () => ((await completed()) === before + jobs ? true : undefined),
        20_000,
        `${jobs} usage jobs timed`,
      );
    } finally {
      await workers.close();
    }
  }
  assert.equal(await completed(), 5);
  assert.equal((await app.db.one<{ n: number }>('SELECT count(*)::int AS n FROM relay_usage')).n, 5);
});
