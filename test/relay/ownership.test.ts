import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createAccount, createCredential, createSite, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import { eventually } from '../helpers/eventually.ts';
import { relayFixture, type RelayFixture } from './setup.ts';

let fx: RelayFixture;
let admin: TestAccount;
let ann: TestAccount;
let bob: TestAccount;

before(async () => {
  fx = await relayFixture();
  const upstream = await fx.fake();
  await fx.channel({ baseUrl: upstream.base, models: ['own-a', 'own-b', 'own-c'] });
  admin = await createAccount(fx.app.db, { admin: true });
  ann = await createAccount(fx.app.db);
  bob = await createAccount(fx.app.db);
});
after(() => fx.close());

const api = (who: TestAccount, method: string, path: string, body?: unknown) =>
  call(fx.app.url, method, path, { session: who.session, body });
const chat = (key: string, model: string) =>
  call(fx.app.url, 'POST', '/v1/chat/completions', {
    bearer: key,
    body: { model, messages: [{ role: 'user', content: 'hi' }] },
  });

test('only the platform admin manages channels, models and groups', async () => {
  const site = await createSite(fx.app.url, ann);
  const credential = await createCredential(fx.app.url, ann, site, 'read', ['analytics:read']);
  for (const [method, path, body] of [
    ['GET', '/api/v1/relay/channels', undefined],
    ['POST', '/api/v1/relay/models', { id: 'own-a' }],
    ['GET', '/api/v1/relay/groups', undefined],
    ['PUT', '/api/v1/relay/groups/x', { models: ['*'] }],
    ['PUT', `/api/v1/relay/accounts/${ann.id}/group`, { group: 'default' }],
  ] as const) {
    const asAnn = await api(ann, method, path, body);
    assert.equal(asAnn.status, 403, `${method} ${path}`);
    assert.equal(asAnn.body.code, 'admin_required');
    const asCredential = await call(fx.app.url, method, path, { bearer: credential, body });
    assert.equal(asCredential.status, 403);
    assert.equal(asCredential.body.code, 'credential_not_allowed');
  }
  const channel = await api(admin, 'POST', '/api/v1/relay/channels', {
    name: 'admin-made',
    baseUrl: 'http://127.0.0.1:9/v1/',
    models: ['own-z'],
    protocols: ['chat'],
  });
  assert.equal(channel.status, 200, channel.text);
  const channels = await api(admin, 'GET', '/api/v1/relay/channels');
  const made = channels.body.data.find((c: any) => c.id === channel.body.id);
  assert.deepEqual(
    { ...made, createdAt: undefined, id: undefined },
    {
      id: undefined,
      name: 'admin-made',
      baseUrl: 'http://127.0.0.1:9/v1',
      models: ['own-z'],
      protocols: ['chat'],
      priority: 0,
      weight: 1,
      enabled: true,
      createdAt: undefined,
    },
  );
  assert.ok(!('apiKey' in made));
  const model = await api(admin, 'POST', '/api/v1/relay/models', {
    id: 'own-z',
    efforts: ['none', 'high'],
    kind: 'chat',
  });
  assert.deepEqual(model.body, { id: 'own-z', efforts: ['none', 'high'], kind: 'chat', allowUnpriced: false });
  const bad = await api(admin, 'PUT', '/api/v1/relay/groups/bad%20name', { models: [], requestsPerMinute: 0 });
  assert.equal(bad.status, 400);
  // The path and the body are checked together: every violation in one answer.
  assert.deepEqual(bad.body.errors.map((e: any) => e.path).sort(), ['/models', '/requestsPerMinute', 'path.group']);
  const badBody = await api(admin, 'PUT', '/api/v1/relay/groups/fine', { models: [], requestsPerMinute: 0 });
  assert.deepEqual(badBody.body.errors.map((e: any) => e.path).sort(), ['/models', '/requestsPerMinute']);
  const missing = await api(admin, 'PUT', `/api/v1/relay/accounts/${ann.id}/group`, { group: 'no-such-group' });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.errors[0].path, '/group');
});

test("an account's keys stay inside its group, and a group change is in force within a second", async () => {
  const g = await api(admin, 'PUT', '/api/v1/relay/groups/small', {
    models: ['own-a', 'own-b'],
    requestsPerMinute: 100,
  });
  assert.equal(g.status, 200, g.text);
  assert.deepEqual(
    [g.body.name, g.body.models, g.body.requestsPerMinute, g.body.tokensPerMinute],
    ['small', ['own-a', 'own-b'], 100, null],
  );
  assert.equal((await api(admin, 'PUT', `/api/v1/relay/accounts/${ann.id}/group`, { group: 'small' })).status, 200);
  assert.deepEqual((await api(ann, 'GET', '/api/v1/me/relay-group')).body.models, ['own-a', 'own-b']);

  const outside = await api(ann, 'POST', '/api/v1/me/relay-keys', { name: 'too wide', models: ['own-a', 'own-c'] });
  assert.equal(outside.status, 400);
  assert.deepEqual(outside.body.errors, [
    { path: '/models/1', message: "the model 'own-c' is not in your group 'small'" },
  ]);

  const every = await api(ann, 'POST', '/api/v1/me/relay-keys', { name: 'every', models: ['*'] });
  assert.equal(every.status, 200, every.text);
  assert.equal(every.headers.get('cache-control'), 'no-store');
  assert.match(every.body.key, /^sk-/);
  const onlyA = (await api(ann, 'POST', '/api/v1/me/relay-keys', { name: 'only a', models: ['own-a'] })).body;

  // A '*' key of the group reaches only the group's models.
  assert.equal((await chat(every.body.key, 'own-a')).status, 200);
  const refused = await chat(every.body.key, 'own-c');
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error.code, 'model_not_permitted');
  const listed = await call(fx.app.url, 'GET', '/v1/models', { bearer: every.body.key });
  assert.deepEqual(
    listed.body.data.map((m: any) => m.id),
    ['own-a', 'own-b'],
  );

  // The group loses own-a and gains own-c: every key follows, whatever it was made with.
  const changedAt = performance.now();
  assert.equal((await api(admin, 'PUT', '/api/v1/relay/groups/small', { models: ['own-b', 'own-c'] })).status, 200);
  let lastStaleStart = -1;
  await eventually(
    async () => {
      const start = performance.now() - changedAt;
      const [a, c] = await Promise.all([chat(onlyA.key, 'own-a'), chat(every.body.key, 'own-c')]);
      if (a.status === 403 && c.status === 200) return true;
      lastStaleStart = start;
      return undefined;
    },
    10_000,
    'the group change to reach the keys',
  );
  assert.ok(
    lastStaleStart < 1000,
    `a call started ${Math.round(lastStaleStart)} ms after the group change still saw the old group`,
  );
  assert.equal((await chat(every.body.key, 'own-a')).status, 403);
});

test('an account lists, disables and deletes only its own keys', async () => {
  const made = (await api(bob, 'POST', '/api/v1/me/relay-keys', { name: 'bob key', models: ['own-a'] })).body;
  const list = await api(bob, 'GET', '/api/v1/me/relay-keys');
  assert.deepEqual(
    list.body.data.map((k: any) => k.id),
    [made.id],
  );
  assert.deepEqual(Object.keys(list.body.data[0]).sort(), [
    'budget',
    'createdAt',
    'disabledAt',
    'expiresAt',
    'id',
    'models',
    'name',
    'prefix',
    'requestsPerMinute',
    'siteId',
    'tokensPerMinute',
  ]);
  assert.equal(made.key.startsWith(list.body.data[0].prefix), true);
  assert.equal(
    (await api(ann, 'GET', '/api/v1/me/relay-keys')).body.data.some((k: any) => k.id === made.id),
    false,
  );
  assert.equal((await api(ann, 'PATCH', `/api/v1/me/relay-keys/${made.id}`, { disabled: true })).status, 404);
  assert.equal((await api(ann, 'DELETE', `/api/v1/me/relay-keys/${made.id}`)).status, 404);
  assert.equal((await api(ann, 'DELETE', '/api/v1/me/relay-keys/not-a-uuid')).status, 404);
  assert.equal((await chat(made.key, 'own-a')).status, 200);

  const disabled = await api(bob, 'PATCH', `/api/v1/me/relay-keys/${made.id}`, { disabled: true });
  assert.equal(disabled.status, 200);
  assert.ok(disabled.body.disabledAt);
  await eventually(
    async () => ((await chat(made.key, 'own-a')).status === 401 ? true : undefined),
    5000,
    'the disabled key to be refused',
  );
  const enabled = await api(bob, 'PATCH', `/api/v1/me/relay-keys/${made.id}`, { disabled: false });
  assert.equal(enabled.body.disabledAt, null);
  await eventually(
    async () => ((await chat(made.key, 'own-a')).status === 200 ? true : undefined),
    5000,
    'the enabled key to work again',
  );

  const deleted = await api(bob, 'DELETE', `/api/v1/me/relay-keys/${made.id}`);
  assert.equal(deleted.status, 200);
  assert.deepEqual((await api(bob, 'GET', '/api/v1/me/relay-keys')).body.data, []);
  const gone = await eventually(
    async () => {
      const r = await chat(made.key, 'own-a');
      return r.status === 401 ? r : undefined;
    },
    5000,
    'the deleted key to be refused',
  );
  assert.match(gone.body.error.message, /deleted/);
  assert.equal((await api(bob, 'DELETE', `/api/v1/me/relay-keys/${made.id}`)).status, 404);
  // Its calls stay metered against it.
  await eventually(
    async () =>
      (await fx.app.db.one('SELECT count(*)::int AS n FROM relay_usage WHERE key_id = $1', [made.id])).n >= 2 ||
      undefined,
    5000,
    'usage rows',
  );
});

test('the key and group endpoints are in the OpenAPI document', async () => {
  const doc = (await call(fx.app.url, 'GET', '/api/v1/openapi.json')).body;
  for (const p of [
    '/api/v1/me/relay-keys',
    '/api/v1/me/relay-keys/{keyId}',
    '/api/v1/relay/groups/{group}',
    '/api/v1/relay/accounts/{accountId}/group',
    '/api/v1/relay/channels',
    '/api/v1/relay/models',
  ]) {
    assert.ok(doc.paths[p], p);
  }
  assert.equal(doc.paths['/api/v1/relay/groups/{group}'].put['x-admin-only'], true);
});
