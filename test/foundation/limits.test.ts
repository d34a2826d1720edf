import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseConfig } from '../../config/env.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, createCredential, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import { batch, ingestSite, postBatch, sampleRecord } from '../ingest/fixtures.ts';

// The server-wide defaults as shipped: no limit variables in the environment.
let app: TestApp;
let admin: TestAccount;
before(async () => {
  app = await startTestApp({ workers: ['ingest'] });
  admin = await createAccount(app.db, { admin: true });
});
after(() => app.close());

const records = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => sampleRecord('events', `${prefix}_${i}`));

/**
 * Leaves the token bucket `key` as a minute of load at `perMinute` would: empty, just now. The
 * old defaults (6,000 requests, 600,000 records a minute) refused the next request from here;
 * sending that load for real would take minutes of this machine.
 */
async function spent(key: string): Promise<void> {
  const [seconds, micros] = (await app.door.app.redis.call('TIME')) as [string, string];
  const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  await app.door.app.redis.hset(`${app.config.QUEUE_PREFIX}:ratelimit:${key}`, 'tokens', '0', 'ts', String(now));
}

test('limits are off by default', () => {
  const c = parseConfig({});
  assert.equal(c.RATE_LIMIT_CREDENTIAL_PER_MIN, 0);
  assert.equal(c.RATE_LIMIT_RELAY_KEY_PER_MIN, 0);
  assert.equal(c.INGEST_QUOTA_RECORDS_PER_MIN, 0);
});

test('by default a load beyond the old limits is not refused', async () => {
  const site = await ingestSite(app);
  const reader = await createCredential(app.url, site.account, site.siteId, 'read', ['sites:read']);
  const credential = await app.db.one('SELECT id FROM credentials WHERE prefix = $1', [reader.slice(0, 12)]);
  await spent(`credential:${credential.id}`);
  const read = await call(app.url, 'GET', `/api/v1/sites/${site.siteId}`, { bearer: reader });
  assert.equal(read.status, 200, read.text);
  assert.equal(read.headers.get('ratelimit-limit'), null);

  await spent(`ingest-site:${site.siteId}`);
  const ingest = await postBatch(app, site, 'events', batch('events', 'beyond-1', records('a', 500)));
  assert.equal(ingest.status, 200, ingest.text);
  assert.equal(ingest.headers.get('ratelimit-limit'), null);
});

test("the platform admin sets a site's limits; its credentials and ingest then get 429 with Retry-After", async () => {
  const site = await ingestSite(app);
  const path = `/api/v1/sites/${site.siteId}/limits`;
  const before = await call(app.url, 'GET', path, { session: admin.session });
  assert.equal(before.status, 200, before.text);
  assert.deepEqual(before.body, {
    ingestRecordsPerMinute: null,
    credentialRequestsPerMinute: null,
    effective: { ingestRecordsPerMinute: 0, credentialRequestsPerMinute: 0 },
  });

  const set = await call(app.url, 'PUT', path, {
    session: admin.session,
    body: { ingestRecordsPerMinute: 600, credentialRequestsPerMinute: 2 },
  });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual(set.body.effective, { ingestRecordsPerMinute: 600, credentialRequestsPerMinute: 2 });
  assert.deepEqual((await call(app.url, 'GET', path, { session: admin.session })).body, set.body);

  const reader = await createCredential(app.url, site.account, site.siteId, 'read', ['sites:read']);
  for (let i = 0; i < 2; i++)
    assert.equal((await call(app.url, 'GET', `/api/v1/sites/${site.siteId}`, { bearer: reader })).status, 200);
  const limited = await call(app.url, 'GET', `/api/v1/sites/${site.siteId}`, { bearer: reader });
  assert.equal(limited.status, 429);
  assert.equal(limited.body.code, 'rate_limited');
  assert.equal(limited.headers.get('ratelimit-limit'), '2');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1, limited.headers.get('retry-after') ?? 'no retry-after');

  const first = await postBatch(app, site, 'events', batch('events', 'limited-1', records('b', 500)));
  assert.equal(first.status, 200, first.text);
  const second = await postBatch(app, site, 'events', batch('events', 'limited-2', records('c', 500)));
  assert.equal(second.status, 429);
  assert.ok(Number(second.headers.get('retry-after')) >= 1);

  // Back to the server default (off): the site's next batch passes.
  await call(app.url, 'PUT', path, {
    session: admin.session,
    body: { ingestRecordsPerMinute: null, credentialRequestsPerMinute: null },
  });
  assert.equal((await postBatch(app, site, 'events', batch('events', 'limited-3', records('d', 500)))).status, 200);
});

test("only the platform admin reads or sets a site's limits, with values checked", async () => {
  const site = await ingestSite(app);
  const path = `/api/v1/sites/${site.siteId}/limits`;
  const body = { ingestRecordsPerMinute: 1, credentialRequestsPerMinute: 1 };
  const owner = await call(app.url, 'PUT', path, { session: site.account.session, body });
  assert.equal(owner.status, 403);
  assert.equal(owner.body.code, 'admin_required');
  assert.equal((await call(app.url, 'GET', path, { session: site.account.session })).status, 403);
  assert.equal((await call(app.url, 'GET', path, { bearer: site.readKey })).status, 403);
  const bad = await call(app.url, 'PUT', path, {
    session: admin.session,
    body: { ingestRecordsPerMinute: -1, credentialRequestsPerMinute: 1.5 },
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body.errors.map((e: any) => e.path).sort(), [
    '/credentialRequestsPerMinute',
    '/ingestRecordsPerMinute',
  ]);
});

test("a credential's own limit wins over its site's, and is listed with it", async () => {
  const site = await ingestSite(app);
  await call(app.url, 'PUT', `/api/v1/sites/${site.siteId}/limits`, {
    session: admin.session,
    body: { ingestRecordsPerMinute: null, credentialRequestsPerMinute: 100 },
  });
  const strict = await createCredential(app.url, site.account, site.siteId, 'read', ['sites:read'], {
    requestsPerMinute: 1,
  });
  const free = await createCredential(app.url, site.account, site.siteId, 'read', ['sites:read'], {
    requestsPerMinute: 0,
  });
  const get = (bearer: string) => call(app.url, 'GET', `/api/v1/sites/${site.siteId}`, { bearer });
  assert.equal((await get(strict)).status, 200);
  const limited = await get(strict);
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('ratelimit-limit'), '1');
  // 0 on the credential: no limit, even past an exhausted bucket the site's 100 would refuse.
  const freeId = (await app.db.one('SELECT id FROM credentials WHERE prefix = $1', [free.slice(0, 12)])).id;
  await spent(`credential:${freeId}`);
  const open = await get(free);
  assert.equal(open.status, 200, open.text);
  assert.equal(open.headers.get('ratelimit-limit'), null);

  const listed = await call(app.url, 'GET', `/api/v1/sites/${site.siteId}/credentials`, {
    session: site.account.session,
  });
  assert.equal(listed.status, 200, listed.text);
  const limits = Object.fromEntries(listed.body.data.map((c: any) => [c.prefix, c.requestsPerMinute]));
  assert.equal(limits[strict.slice(0, 12)], 1);
  assert.equal(limits[free.slice(0, 12)], 0);
  const bad = await call(app.url, 'POST', `/api/v1/sites/${site.siteId}/credentials`, {
    session: site.account.session,
    body: { name: 'x', kind: 'read', scopes: ['sites:read'], requestsPerMinute: -1 },
  });
  assert.equal(bad.status, 400);
});
