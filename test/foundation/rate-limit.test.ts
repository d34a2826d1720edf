import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, createCredential, createSite, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';

let app: TestApp;
let owner: TestAccount;
let site: string;
before(async () => {
  app = await startTestApp({ env: { RATE_LIMIT_CREDENTIAL_PER_MIN: '3' } });
  owner = await createAccount(app.db);
  site = await createSite(app.url, owner);
});
after(() => app.close());

test('a credential past its per-minute budget gets 429 with Retry-After and RateLimit headers', async () => {
  const secret = await createCredential(app.url, owner, site, 'read', ['sites:read']);
  const remaining: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await call(app.url, 'GET', `/api/v1/sites/${site}`, { bearer: secret });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('ratelimit-limit'), '3');
    remaining.push(r.headers.get('ratelimit-remaining')!);
  }
  assert.deepEqual(remaining, ['2', '1', '0']);
  const limited = await call(app.url, 'GET', `/api/v1/sites/${site}`, { bearer: secret });
  assert.equal(limited.status, 429);
  assert.equal(limited.body.code, 'rate_limited');
  assert.match(limited.headers.get('content-type') ?? '', /problem\+json/);
  // 3 per minute refill one token every 20 s.
  const retry = Number(limited.headers.get('retry-after'));
  assert.ok(retry >= 1 && retry <= 20, `retry-after ${retry}`);
  assert.equal(limited.headers.get('ratelimit-remaining'), '0');
});

test('buckets are per credential, and sessions are not limited by them', async () => {
  const first = await createCredential(app.url, owner, site, 'read', ['sites:read']);
  const second = await createCredential(app.url, owner, site, 'read', ['sites:read']);
  for (let i = 0; i < 3; i++) await call(app.url, 'GET', `/api/v1/sites/${site}`, { bearer: first });
  assert.equal((await call(app.url, 'GET', `/api/v1/sites/${site}`, { bearer: first })).status, 429);
  assert.equal((await call(app.url, 'GET', `/api/v1/sites/${site}`, { bearer: second })).status, 200);
  for (let i = 0; i < 5; i++)
    assert.equal((await call(app.url, 'GET', `/api/v1/sites/${site}`, { session: owner.session })).status, 200);
});
