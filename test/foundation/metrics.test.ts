import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { recordJobDuration } from '../../src/metrics/job-durations.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
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
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue;
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
  assert.equal(sample(text, 'radar_http_requests_total', { route: '/api/v1/me', method: 'GET', status: '200' }), base + 3);
  assert.ok((sample(text, 'radar_http_requests_total', { route: '/api/v1/me', method: 'GET', status: '401' }) ?? 0) >= 1);
  assert.ok((sample(text, 'radar_http_request_duration_seconds_count', { route: '/api/v1/me', method: 'GET' }) ?? 0) >= base + 4);
  await call(app.url, 'GET', '/api/v1/sites/5a1c3c1e-0000-4000-8000-000000000000/anything');
  assert.ok((sample(await scrape(), 'radar_http_requests_total', { route: 'unmatched', status: '404' }) ?? 0) >= 1, 'raw paths never become labels');
});

test('pool usage, queue depth and job durations from every worker are exported', async () => {
  await recordJobDuration(app.door.app.redis, app.config.QUEUE_PREFIX, 'ingest', 'completed', 0.03);
  await recordJobDuration(app.door.app.redis, app.config.QUEUE_PREFIX, 'ingest', 'completed', 3);
  const text = await scrape();
  assert.notEqual(sample(text, 'radar_pg_pool_connections', { state: 'total' }), null);
  assert.equal(sample(text, 'radar_queue_jobs', { queue: 'ingest', state: 'waiting' }), 0);
  assert.equal(sample(text, 'radar_job_duration_seconds_bucket', { queue: 'ingest', status: 'completed', le: '0.05' }), 1);
  assert.equal(sample(text, 'radar_job_duration_seconds_bucket', { queue: 'ingest', status: 'completed', le: '+Inf' }), 2);
  assert.equal(sample(text, 'radar_job_duration_seconds_count', { queue: 'ingest', status: 'completed' }), 2);
  assert.ok(Math.abs(sample(text, 'radar_job_duration_seconds_sum', { queue: 'ingest', status: 'completed' })! - 3.03) < 1e-9);
});
