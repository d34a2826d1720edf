import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { issueSetupLink } from '../../src/admin/setup.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, createCredential, createSite, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import { batch, ingestSite, postBatch, sampleRecord } from '../ingest/fixtures.ts';

let app: TestApp;
before(async () => {
  app = await startTestApp({ workers: ['ingest'] });
});
after(() => app.close());

const cookieOf = (r: { headers: Headers }) =>
  /__Host-radar_session=([^;]+)/.exec(r.headers.get('set-cookie') ?? '')?.[1];

describe('first-run setup', () => {
  test('a link exists only while no admin does; it creates the admin once and logs in', async () => {
    assert.deepEqual((await call(app.url, 'GET', '/api/v1/setup')).body, { open: true });
    const link = await issueSetupLink(app.db, app.url);
    assert.ok(link);
    const token = new URL(link).hash.replace('#token=', '');
    assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/setup#token=[\w-]{43}$/);

    const wrong = await call(app.url, 'POST', '/api/v1/setup', {
      body: { token: 'x'.repeat(43), email: 'root@example.com', password: 'correct horse' },
    });
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.code, 'setup_token_invalid');
    const short = await call(app.url, 'POST', '/api/v1/setup', {
      body: { token, email: 'root@example.com', password: 'short' },
    });
    assert.deepEqual(
      short.body.errors.map((e: any) => e.path),
      ['/password'],
    );
    const foreign = await call(app.url, 'POST', '/api/v1/setup', {
      headers: { origin: 'https://evil.example' },
      body: { token, email: 'root@example.com', password: 'correct horse' },
    });
    assert.equal(foreign.body.code, 'origin_mismatch');

    const ok = await call(app.url, 'POST', '/api/v1/setup', {
      headers: { origin: app.url },
      body: { token, email: 'root@example.com', password: 'correct horse' },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.account.admin, true);
    const session = cookieOf(ok);
    assert.ok(session);
    assert.equal((await call(app.url, 'GET', '/api/v1/me', { session })).body.admin, true);

    const again = await call(app.url, 'POST', '/api/v1/setup', {
      body: { token, email: 'two@example.com', password: 'correct horse' },
    });
    assert.equal(again.body.code, 'setup_complete');
    assert.equal(await issueSetupLink(app.db, app.url), null);
    assert.deepEqual((await call(app.url, 'GET', '/api/v1/setup')).body, { open: false });
  });
});

describe('admin endpoints', () => {
  let admin: TestAccount;
  let owner: TestAccount;
  before(async () => {
    admin = await createAccount(app.db, { admin: true });
    owner = await createAccount(app.db);
  });

  test('need the platform admin: 401 without a session, 403 for an account, a credential or a foreign Origin', async () => {
    assert.equal((await call(app.url, 'GET', '/api/v1/admin/accounts')).status, 401);
    const notAdmin = await call(app.url, 'GET', '/api/v1/admin/accounts', { session: owner.session });
    assert.equal(notAdmin.body.code, 'admin_required');
    const siteId = await createSite(app.url, owner);
    const key = await createCredential(app.url, owner, siteId, 'read', ['sites:read']);
    assert.equal(
      (await call(app.url, 'GET', '/api/v1/admin/sites', { bearer: key })).body.code,
      'credential_not_allowed',
    );
    const foreign = await call(app.url, 'POST', '/api/v1/admin/accounts', {
      session: admin.session,
      origin: 'https://evil.example',
      body: {},
    });
    assert.equal(foreign.body.code, 'origin_mismatch');
  });

  test('accounts: create, list, refuse a taken email, disable (login, sessions and credentials stop) and enable', async () => {
    const created = await call(app.url, 'POST', '/api/v1/admin/accounts', {
      session: admin.session,
      body: { email: 'Newbie@Example.com', password: 'long enough', name: 'Newbie' },
    });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.admin, false);
    assert.equal(created.body.disabledAt, null);
    const taken = await call(app.url, 'POST', '/api/v1/admin/accounts', {
      session: admin.session,
      body: { email: 'newbie@example.com', password: 'long enough' },
    });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, 'account_exists');
    const list = await call(app.url, 'GET', '/api/v1/admin/accounts', { session: admin.session });
    assert.equal(list.body.data.find((a: any) => a.id === created.body.id)?.relayGroup, 'default');

    const login = await call(app.url, 'POST', '/api/v1/auth/login', {
      body: { email: 'newbie@example.com', password: 'long enough' },
    });
    assert.equal(login.status, 200);
    const session = cookieOf(login)!;
    const siteId = await createSite(app.url, { ...owner, session });
    const key = await createCredential(app.url, { ...owner, session }, siteId, 'read', ['sites:read']);
    assert.equal((await call(app.url, 'GET', '/api/v1/me/sites', { bearer: key })).status, 200);

    const self = await call(app.url, 'PATCH', `/api/v1/admin/accounts/${admin.id}`, {
      session: admin.session,
      body: { disabled: true },
    });
    assert.equal(self.status, 422);
    const disabled = await call(app.url, 'PATCH', `/api/v1/admin/accounts/${created.body.id}`, {
      session: admin.session,
      body: { disabled: true },
    });
    assert.equal(disabled.status, 200);
    assert.ok(disabled.body.disabledAt);
    assert.equal((await call(app.url, 'GET', '/api/v1/me', { session })).status, 401);
    assert.equal((await call(app.url, 'GET', '/api/v1/me/sites', { bearer: key })).status, 401);
    const relogin = await call(app.url, 'POST', '/api/v1/auth/login', {
      body: { email: 'newbie@example.com', password: 'long enough' },
    });
    assert.equal(relogin.body.code, 'invalid_credentials');
    const enabled = await call(app.url, 'PATCH', `/api/v1/admin/accounts/${created.body.id}`, {
      session: admin.session,
      body: { disabled: false },
    });
    assert.equal(enabled.body.disabledAt, null);
    assert.equal(
      (
        await call(app.url, 'POST', '/api/v1/auth/login', {
          body: { email: 'newbie@example.com', password: 'long enough' },
        })
      ).status,
      200,
    );
    const missing = await call(app.url, 'PATCH', '/api/v1/admin/accounts/00000000-0000-4000-8000-000000000000', {
      session: admin.session,
      body: { disabled: true },
    });
    assert.equal(missing.status, 404);
  });

  test('site review queue: pending sites with owner, approve and reject', async () => {
    const a = await createSite(app.url, owner, {
      name: 'Queue A',
      websiteUrl: 'https://a.example',
      description: 'site a',
      category: 'chat',
    });
    const b = await createSite(app.url, owner, {
      name: 'Queue B',
      websiteUrl: 'https://b.example',
      description: 'site b',
      category: 'chat',
    });
    const queue = await call(app.url, 'GET', '/api/v1/admin/sites', { session: admin.session });
    const mine = queue.body.data.filter((s: any) => s.id === a || s.id === b);
    assert.deepEqual(
      mine.map((s: any) => [s.name, s.ownerEmail, s.reviewStatus]),
      [
        ['Queue A', owner.email, 'pending_review'],
        ['Queue B', owner.email, 'pending_review'],
      ],
    );
    const approved = await call(app.url, 'POST', `/api/v1/admin/sites/${a}/review`, {
      session: admin.session,
      body: { decision: 'approved' },
    });
    assert.equal(approved.body.reviewStatus, 'approved');
    await call(app.url, 'POST', `/api/v1/admin/sites/${b}/review`, {
      session: admin.session,
      body: { decision: 'rejected' },
    });
    const after = await call(app.url, 'GET', '/api/v1/admin/sites', { session: admin.session });
    assert.ok(!after.body.data.some((s: any) => s.id === a || s.id === b));
    const rejected = await call(app.url, 'GET', '/api/v1/admin/sites?status=rejected', { session: admin.session });
    assert.ok(rejected.body.data.some((s: any) => s.id === b));
    const bad = await call(app.url, 'POST', `/api/v1/admin/sites/${a}/review`, {
      session: admin.session,
      body: { decision: 'maybe' },
    });
    assert.deepEqual(
      bad.body.errors.map((e: any) => e.path),
      ['/decision'],
    );
    const none = await call(app.url, 'POST', '/api/v1/admin/sites/00000000-0000-4000-8000-000000000000/review', {
      session: admin.session,
      body: { decision: 'approved' },
    });
    assert.equal(none.status, 403);
  });

  test("recent batches: newest first, a rejected one with every record's reason", async () => {
    const site = await ingestSite(app);
    const { siteId, ingestKey, account } = site;
    const good = await postBatch(
      app,
      site,
      'events',
      batch('events', 'b-good', [{ ...sampleRecord('events', 1), revision: 2 }]),
    );
    assert.equal(good.status, 200, good.text);
    const stale = await postBatch(
      app,
      site,
      'events',
      batch('events', 'b-stale', [{ ...sampleRecord('events', 1), revision: 1 }]),
    );
    assert.equal(stale.status, 409, stale.text);
    const r = await call(app.url, 'GET', `/api/v1/sites/${siteId}/ingest/batches?limit=10`, {
      session: account.session,
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.data.map((b: any) => [b.batch_id, b.status]),
      [
        ['b-stale', 'rejected'],
        ['b-good', 'completed'],
      ],
    );
    assert.equal(r.body.data[0].problem.code, 'revision_stale');
    assert.ok(r.body.data[0].problem.errors.length >= 1);
    assert.equal(
      (await call(app.url, 'GET', `/api/v1/sites/${siteId}/ingest/batches`, { bearer: ingestKey })).body.data.length,
      2,
    );
    assert.equal(
      (await call(app.url, 'GET', `/api/v1/sites/${siteId}/ingest/batches?limit=0`, { session: account.session }))
        .status,
      400,
    );
  });
});
