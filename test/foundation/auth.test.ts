import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, createCredential, createSite, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';

let app: TestApp;
let alice: TestAccount;
let bob: TestAccount;
let aliceSite: string;
let bobSite: string;

before(async () => {
  app = await startTestApp();
  alice = await createAccount(app.db);
  bob = await createAccount(app.db);
  aliceSite = await createSite(app.url, alice);
  bobSite = await createSite(app.url, bob);
});
after(() => app.close());

const status = async (...args: Parameters<typeof call>) => {
  const r = await call(...args);
  return { status: r.status, code: r.body?.code };
};

describe('401: no, bad, expired or revoked login or credential', () => {
  test('no credential at all', async () => {
    const r = await call(app.url, 'GET', '/api/v1/me');
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'unauthenticated');
    assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer/);
  });

  test('malformed Authorization, unknown prefix, unknown secret, unknown session', async () => {
    assert.deepEqual(await status(app.url, 'GET', '/api/v1/me', { headers: { authorization: 'Basic abc' } }), {
      status: 401,
      code: 'unauthenticated',
    });
    assert.deepEqual(await status(app.url, 'GET', '/api/v1/me', { bearer: 'sk-not-ours' }), {
      status: 401,
      code: 'unauthenticated',
    });
    assert.deepEqual(await status(app.url, 'GET', '/api/v1/me', { bearer: `rdr_read_${'A'.repeat(43)}` }), {
      status: 401,
      code: 'unauthenticated',
    });
    assert.deepEqual(await status(app.url, 'GET', '/api/v1/me', { session: 'forged-token' }), {
      status: 401,
      code: 'unauthenticated',
    });
  });

  test('a read secret relabelled as ingest is unknown', async () => {
    const secret = await createCredential(app.url, alice, aliceSite, 'read', ['account:read']);
    const relabelled = secret.replace(/^rdr_read_/, 'rdr_ingest_');
    assert.equal((await call(app.url, 'GET', '/api/v1/me', { bearer: secret })).status, 200);
    assert.equal((await call(app.url, 'GET', '/api/v1/me', { bearer: relabelled })).status, 401);
  });

  test('an expired credential is refused', async () => {
    const secret = await createCredential(app.url, alice, aliceSite, 'read', ['account:read'], { expiresInDays: 1 });
    assert.equal((await call(app.url, 'GET', '/api/v1/me', { bearer: secret })).status, 200);
    await app.db.none("UPDATE credentials SET expires_at = now() - interval '1 second' WHERE prefix = $1", [
      secret.slice(0, 12),
    ]);
    const r = await call(app.url, 'GET', '/api/v1/me', { bearer: secret });
    assert.equal(r.status, 401);
    assert.match(r.body.detail, /expired/);
  });

  test('a revoked credential is refused', async () => {
    const secret = await createCredential(app.url, alice, aliceSite, 'read', ['account:read']);
    const list = await call(app.url, 'GET', `/api/v1/sites/${aliceSite}/credentials`, { session: alice.session });
    const id = list.body.data.find((c: any) => c.prefix === secret.slice(0, 12)).id;
    const del = await call(app.url, 'DELETE', `/api/v1/sites/${aliceSite}/credentials/${id}`, {
      session: alice.session,
    });
    assert.equal(del.status, 200);
    assert.ok(del.body.revokedAt);
    const r = await call(app.url, 'GET', '/api/v1/me', { bearer: secret });
    assert.equal(r.status, 401);
    assert.match(r.body.detail, /revoked/);
  });

  test('an expired session is refused', async () => {
    const carol = await createAccount(app.db);
    assert.equal((await call(app.url, 'GET', '/api/v1/me', { session: carol.session })).status, 200);
    await app.db.none("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE account_id = $1", [carol.id]);
    assert.equal((await call(app.url, 'GET', '/api/v1/me', { session: carol.session })).status, 401);
  });
});

describe('the Origin rule for sessions', () => {
  const body = { name: 'Site', websiteUrl: 'https://s.example', description: 'desc', category: 'chat' };

  test('a mutating session request without Origin is 403', async () => {
    const r = await call(app.url, 'POST', '/api/v1/me/sites', { session: alice.session, origin: null, body });
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'origin_mismatch');
  });

  test('a foreign Origin is 403', async () => {
    const r = await call(app.url, 'POST', '/api/v1/me/sites', {
      session: alice.session,
      origin: 'https://evil.example',
      body,
    });
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'origin_mismatch');
  });

  test('the service origin passes; reads need no Origin', async () => {
    assert.equal((await call(app.url, 'POST', '/api/v1/me/sites', { session: alice.session, body })).status, 200);
    assert.equal(
      (await call(app.url, 'GET', '/api/v1/me/sites', { session: alice.session, origin: null })).status,
      200,
    );
  });

  test('Bearer credentials need no Origin', async () => {
    const secret = await createCredential(app.url, alice, aliceSite, 'read', ['sites:read']);
    assert.equal((await call(app.url, 'GET', `/api/v1/sites/${aliceSite}`, { bearer: secret })).status, 200);
  });
});

describe('login and logout', () => {
  test('login sets the __Host- cookie with the required attributes, and the cookie works', async () => {
    const r = await call(app.url, 'POST', '/api/v1/auth/login', {
      body: { email: alice.email.toUpperCase(), password: alice.password },
    });
    assert.equal(r.status, 200, r.text);
    const cookie = r.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^__Host-radar_session=[\w-]{43}; /);
    for (const attr of ['Secure', 'HttpOnly', 'SameSite=Lax', 'Path=/']) assert.ok(cookie.includes(attr), attr);
    assert.ok(!/Domain=/i.test(cookie));
    assert.equal(r.body.account.id, alice.id);
    const token = /^__Host-radar_session=([^;]+)/.exec(cookie)![1]!;

    const me = await call(app.url, 'GET', '/api/v1/me', { session: token });
    assert.equal(me.body.id, alice.id);

    const out = await call(app.url, 'POST', '/api/v1/auth/logout', { session: token });
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie') ?? '', /Max-Age=0/);
    assert.equal((await call(app.url, 'GET', '/api/v1/me', { session: token })).status, 401);
  });

  test('a wrong password or unknown email is 401 invalid_credentials', async () => {
    for (const body of [
      { email: alice.email, password: 'wrong-password' },
      { email: 'nobody@example.com', password: 'whatever1' },
    ]) {
      const r = await call(app.url, 'POST', '/api/v1/auth/login', { body });
      assert.equal(r.status, 401);
      assert.equal(r.body.code, 'invalid_credentials');
    }
  });

  test('a malformed login body is 400 listing each field', async () => {
    const r = await call(app.url, 'POST', '/api/v1/auth/login', { body: { email: 'not-an-email', extra: true } });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.errors.map((e: any) => e.path).sort(), ['/email', '/extra', '/password']);
  });

  test('login from a foreign Origin is refused', async () => {
    const r = await call(app.url, 'POST', '/api/v1/auth/login', {
      headers: { origin: 'https://evil.example' },
      body: { email: alice.email, password: alice.password },
    });
    assert.equal(r.status, 403);
  });
});

describe('scopes and credential kinds', () => {
  test("GET /me needs account:read; GET /me/sites lists only the credential's site", async () => {
    await createSite(app.url, alice, {
      name: 'Second',
      websiteUrl: 'https://two.example',
      description: 'two',
      category: 'api',
    });
    const noScope = await createCredential(app.url, alice, aliceSite, 'read', ['sites:read']);
    const r1 = await call(app.url, 'GET', '/api/v1/me', { bearer: noScope });
    assert.equal(r1.status, 403);
    assert.equal(r1.body.code, 'insufficient_scope');
    const sites = await call(app.url, 'GET', '/api/v1/me/sites', { bearer: noScope });
    assert.equal(sites.status, 200);
    assert.deepEqual(
      sites.body.data.map((s: any) => s.id),
      [aliceSite],
    );
    const all = await call(app.url, 'GET', '/api/v1/me/sites', { session: alice.session });
    assert.ok(all.body.data.length >= 2);
  });

  test('credentials can never submit or change sites or manage credentials', async () => {
    const reader = await createCredential(app.url, alice, aliceSite, 'read', ['sites:read', 'account:read']);
    const ingest = await createCredential(app.url, alice, aliceSite, 'ingest', ['ingest:events:write']);
    for (const bearer of [reader, ingest]) {
      for (const [method, path, body] of [
        [
          'POST',
          '/api/v1/me/sites',
          { name: 'Nope', websiteUrl: 'https://n.example', description: 'no', category: 'chat' },
        ],
        ['PATCH', `/api/v1/sites/${aliceSite}`, { name: 'Renamed' }],
        ['GET', `/api/v1/sites/${aliceSite}/credentials`, undefined],
        ['POST', `/api/v1/sites/${aliceSite}/credentials`, { name: 'x', kind: 'read', scopes: ['sites:read'] }],
      ] as const) {
        const r = await call(app.url, method, path, { bearer, body });
        assert.equal(r.status, 403, `${method} ${path}`);
      }
    }
  });

  test('an ingest credential cannot read the site', async () => {
    const ingest = await createCredential(app.url, alice, aliceSite, 'ingest', ['ingest:events:write']);
    const r = await call(app.url, 'GET', `/api/v1/sites/${aliceSite}`, { bearer: ingest });
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'insufficient_scope');
  });

  test("a credential of an admin's site has no admin powers", async () => {
    const admin = await createAccount(app.db, { admin: true });
    const adminSite = await createSite(app.url, admin);
    const secret = await createCredential(app.url, admin, adminSite, 'read', ['sites:read', 'account:read']);
    const me = await call(app.url, 'GET', '/api/v1/me', { bearer: secret });
    assert.equal(me.body.admin, false);
    assert.equal((await call(app.url, 'GET', `/api/v1/sites/${bobSite}`, { bearer: secret })).status, 403);
    const listed = await call(app.url, 'GET', '/api/v1/me/sites', { bearer: secret });
    assert.deepEqual(
      listed.body.data.map((s: any) => s.id),
      [adminSite],
    );
    // The admin's own session does see every site.
    assert.equal((await call(app.url, 'GET', `/api/v1/sites/${bobSite}`, { session: admin.session })).status, 200);
  });
});

describe('cross-site isolation', () => {
  test("a session cannot see or change another account's site: 403 like a missing one", async () => {
    const foreign = await call(app.url, 'GET', `/api/v1/sites/${bobSite}`, { session: alice.session });
    const missing = await call(app.url, 'GET', '/api/v1/sites/00000000-0000-4000-8000-000000000000', {
      session: alice.session,
    });
    assert.equal(foreign.status, 403);
    assert.equal(missing.status, 403);
    assert.equal(foreign.body.code, missing.body.code);
    assert.equal(
      (await call(app.url, 'PATCH', `/api/v1/sites/${bobSite}`, { session: alice.session, body: { name: 'Hijack' } }))
        .status,
      403,
    );
    assert.equal(
      (await call(app.url, 'GET', `/api/v1/sites/${bobSite}/credentials`, { session: alice.session })).status,
      403,
    );
    assert.equal(
      (
        await call(app.url, 'POST', `/api/v1/sites/${bobSite}/credentials`, {
          session: alice.session,
          body: { name: 'x', kind: 'read', scopes: ['sites:read'] },
        })
      ).status,
      403,
    );
    const bobView = await call(app.url, 'GET', `/api/v1/sites/${bobSite}`, { session: bob.session });
    assert.equal(bobView.body.name, 'Acme Writer');
  });

  test('a credential acts on its own site only', async () => {
    const secret = await createCredential(app.url, alice, aliceSite, 'read', ['sites:read']);
    assert.equal((await call(app.url, 'GET', `/api/v1/sites/${aliceSite}`, { bearer: secret })).status, 200);
    const r = await call(app.url, 'GET', `/api/v1/sites/${bobSite}`, { bearer: secret });
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'site_forbidden');
  });

  test('a siteId that is not a UUID is 400', async () => {
    const r = await call(app.url, 'GET', '/api/v1/sites/not-a-uuid', { session: alice.session });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.errors, [{ path: 'path.siteId', message: 'must be a UUID' }]);
  });
});
