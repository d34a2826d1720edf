import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { reviewSite } from '../../src/sites/repo.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, createSite, SITE_BODY, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';

let app: TestApp;
let owner: TestAccount;
before(async () => {
  app = await startTestApp();
  owner = await createAccount(app.db);
});
after(() => app.close());

const submit = (body: unknown) => call(app.url, 'POST', '/api/v1/me/sites', { session: owner.session, body });
const patch = (id: string, body: unknown) =>
  call(app.url, 'PATCH', `/api/v1/sites/${id}`, { session: owner.session, body });

describe('submitting a site', () => {
  test('returns the site in pending_review with publicMetrics defaulting to false', async () => {
    const r = await submit(SITE_BODY);
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body).sort(), [
      'category',
      'createdAt',
      'description',
      'id',
      'name',
      'publicMetrics',
      'reviewStatus',
      'updatedAt',
      'websiteUrl',
    ]);
    assert.equal(r.body.reviewStatus, 'pending_review');
    assert.equal(r.body.publicMetrics, false);
    assert.match(r.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const back = await call(app.url, 'GET', `/api/v1/sites/${r.body.id}`, { session: owner.session });
    assert.deepEqual(back.body, r.body);
  });

  test('lists every violation with JSON Pointer paths', async () => {
    const r = await submit({
      name: 'x',
      websiteUrl: 'ftp://files.example',
      description: 'd'.repeat(2001),
      category: 'games',
      publicMetrics: 'yes',
      dataConnection: {},
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'validation_failed');
    const paths = r.body.errors.map((e: any) => e.path).sort();
    assert.deepEqual(paths, ['/category', '/dataConnection', '/description', '/name', '/publicMetrics', '/websiteUrl']);
  });

  test('missing required fields are each named; a non-object body is refused', async () => {
    const r = await submit({});
    assert.deepEqual(r.body.errors.map((e: any) => e.path).sort(), [
      '/category',
      '/description',
      '/name',
      '/websiteUrl',
    ]);
    assert.equal((await submit([SITE_BODY])).status, 400);
  });

  test('limits hold at their edges', async () => {
    assert.equal((await submit({ ...SITE_BODY, name: 'ab', description: 'cd' })).status, 200);
    assert.equal((await submit({ ...SITE_BODY, name: 'n'.repeat(160), description: 'd'.repeat(2000) })).status, 200);
    assert.equal((await submit({ ...SITE_BODY, name: 'n'.repeat(161) })).status, 400);
    const longUrl = `https://a.example/${'p'.repeat(2048 - 18)}`;
    assert.equal(longUrl.length, 2048);
    assert.equal((await submit({ ...SITE_BODY, websiteUrl: longUrl })).status, 200);
    assert.equal((await submit({ ...SITE_BODY, websiteUrl: `${longUrl}p` })).status, 400);
  });
});

describe('review states', () => {
  test('pending → approved; a public change returns it to review; a no-op change does not', async () => {
    const id = await createSite(app.url, owner);
    await reviewSite(app.db, id, 'approved');
    let r = await call(app.url, 'GET', `/api/v1/sites/${id}`, { session: owner.session });
    assert.equal(r.body.reviewStatus, 'approved');

    r = await patch(id, { name: SITE_BODY.name, category: SITE_BODY.category });
    assert.equal(r.status, 200);
    assert.equal(r.body.reviewStatus, 'approved', 'same values change nothing');
    r = await patch(id, {});
    assert.equal(r.body.reviewStatus, 'approved', 'an empty patch changes nothing');

    const before = r.body.updatedAt;
    r = await patch(id, { description: 'A better description' });
    assert.equal(r.body.reviewStatus, 'pending_review');
    assert.equal(r.body.description, 'A better description');
    assert.equal(r.body.name, SITE_BODY.name, 'untouched fields are kept');
    assert.ok(r.body.updatedAt > before);
  });

  test('every public field sends an approved or rejected site back to review', async () => {
    const changes = [
      { name: 'Renamed Site' },
      { websiteUrl: 'https://renamed.example' },
      { description: 'Changed' },
      { category: 'video' },
      { publicMetrics: true },
    ];
    for (const decision of ['approved', 'rejected'] as const) {
      for (const change of changes) {
        const id = await createSite(app.url, owner);
        await reviewSite(app.db, id, decision);
        const r = await patch(id, change);
        assert.equal(r.body.reviewStatus, 'pending_review', `${decision} + ${JSON.stringify(change)}`);
      }
    }
  });

  test('PATCH validates like POST, partially, and refuses unknown fields', async () => {
    const id = await createSite(app.url, owner);
    const r = await patch(id, { name: 'x', reviewStatus: 'approved' });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.errors.map((e: any) => e.path).sort(), ['/name', '/reviewStatus']);
    const still = await call(app.url, 'GET', `/api/v1/sites/${id}`, { session: owner.session });
    assert.equal(still.body.name, SITE_BODY.name, 'a refused patch changes nothing');
  });
});
