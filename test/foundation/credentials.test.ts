import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, createSite, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';

let app: TestApp;
let owner: TestAccount;
let site: string;
before(async () => {
  app = await startTestApp();
  owner = await createAccount(app.db);
  site = await createSite(app.url, owner);
});
after(() => app.close());

const create = (body: unknown) =>
  call(app.url, 'POST', `/api/v1/sites/${site}/credentials`, { session: owner.session, body });
const DAY = 86_400_000;

describe('creating credentials', () => {
  test('the secret is shown once; the list shows metadata and the prefix only', async () => {
    const r = await create({
      name: 'Warehouse sync',
      kind: 'ingest',
      scopes: ['ingest:events:write', 'ingest:receipt:read'],
    });
    assert.equal(r.status, 200);
    assert.match(r.body.secret, /^rdr_ingest_[\w-]{43}$/);
    assert.equal(r.body.prefix, r.body.secret.slice(0, 12));
    assert.equal(r.headers.get('cache-control'), 'no-store');
    const expiresIn = Date.parse(r.body.expiresAt) - Date.parse(r.body.createdAt);
    assert.ok(Math.abs(expiresIn - 90 * DAY) < 60_000, 'default lifetime is 90 days');

    const list = await call(app.url, 'GET', `/api/v1/sites/${site}/credentials`, { session: owner.session });
    const listed = list.body.data.find((c: any) => c.id === r.body.id);
    const { secret, ...metadata } = r.body;
    assert.deepEqual(listed, metadata);
    assert.ok(!list.text.includes(secret), 'no secret anywhere in the list');
    const stored = await app.db.one('SELECT secret_hash FROM credentials WHERE id = $1', [r.body.id]);
    assert.ok(!stored.secret_hash.toString('utf8').includes(secret.slice(12)), 'stored only as a digest');
  });

  test('read credentials start with rdr_read_; lifetime is honoured', async () => {
    const r = await create({ name: 'Dashboard', kind: 'read', scopes: ['analytics:read'], expiresInDays: 365 });
    assert.match(r.body.secret, /^rdr_read_/);
    assert.ok(Math.abs(Date.parse(r.body.expiresAt) - Date.parse(r.body.createdAt) - 365 * DAY) < 60_000);
  });

  test('kind decides the allowed scopes: read holds read scopes and geo:run, ingest only ingest scopes', async () => {
    assert.equal((await create({ name: 'a', kind: 'read', scopes: ['geo:run', 'finance:read'] })).status, 200);
    const bad = [
      { kind: 'read', scopes: ['ingest:events:write'] },
      { kind: 'read', scopes: ['sites:write'] },
      { kind: 'read', scopes: ['credentials:manage'] },
      { kind: 'ingest', scopes: ['events:read'] },
      { kind: 'ingest', scopes: ['geo:run'] },
    ];
    for (const b of bad) {
      const r = await create({ name: 'x', ...b });
      assert.equal(r.status, 400, JSON.stringify(b));
      assert.deepEqual(
        r.body.errors.map((e: any) => e.path),
        ['/scopes/0'],
      );
    }
  });

  test('every rule of spec 2.6 answers 400 with all violations', async () => {
    const r = await create({ name: '', kind: 'admin', scopes: [], expiresInDays: 0, extra: 1 });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.errors.map((e: any) => e.path).sort(), [
      '/expiresInDays',
      '/extra',
      '/kind',
      '/name',
      '/scopes',
    ]);
    const edges = [
      [{ expiresInDays: 366 }, '/expiresInDays'],
      [{ expiresInDays: 1.5 }, '/expiresInDays'],
      [{ name: 'n'.repeat(161) }, '/name'],
      [{ scopes: ['sites:read', 'no:such'] }, '/scopes/1'],
      [{ scopes: Array(26).fill('sites:read') }, '/scopes'],
      [{ scopes: ['sites:read', 'sites:read'] }, '/scopes/1'],
    ] as const;
    for (const [change, path] of edges) {
      const e = await create({ name: 'x', kind: 'read', scopes: ['sites:read'], ...change });
      assert.equal(e.status, 400, JSON.stringify(change));
      assert.ok(
        e.body.errors.some((x: any) => x.path === path),
        `${JSON.stringify(change)} → ${JSON.stringify(e.body.errors)}`,
      );
    }
    const all25 = [
      'account:read',
      'account:billing:read',
      'sites:read',
      'submissions:read',
      'referrals:read',
      'analytics:read',
      'customers:read',
      'events:read',
      'finance:read',
      'monitoring:read',
      'reports:read',
      'actions:read',
      'exports:read',
      'geo:read',
      'geo:evidence:read',
      'geo:run',
    ];
    assert.equal((await create({ name: 'all', kind: 'read', scopes: all25 })).status, 200);
  });

  test('revoking an unknown credential is 404; revoking twice keeps the first time', async () => {
    assert.equal(
      (
        await call(app.url, 'DELETE', `/api/v1/sites/${site}/credentials/00000000-0000-4000-8000-000000000000`, {
          session: owner.session,
        })
      ).status,
      404,
    );
    assert.equal(
      (await call(app.url, 'DELETE', `/api/v1/sites/${site}/credentials/nope`, { session: owner.session })).status,
      404,
    );
    const c = await create({ name: 'temp', kind: 'read', scopes: ['sites:read'] });
    const first = await call(app.url, 'DELETE', `/api/v1/sites/${site}/credentials/${c.body.id}`, {
      session: owner.session,
    });
    const second = await call(app.url, 'DELETE', `/api/v1/sites/${site}/credentials/${c.body.id}`, {
      session: owner.session,
    });
    assert.equal(first.body.revokedAt, second.body.revokedAt);
  });
});
