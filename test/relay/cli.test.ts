import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import type { FakeUpstream } from './fake-upstream.ts';
import { relayFixture, type RelayFixture } from './setup.ts';

const RADAR = fileURLToPath(new URL('../../src/cli/radar.js', import.meta.url));
let fx: RelayFixture;
let fake: FakeUpstream;

before(async () => {
  fx = await relayFixture();
  fake = await fx.fake({ apiKey: 'provider-key', protocols: ['chat'] });
});
after(() => fx.close());

async function radar(...args: string[]): Promise<{ code: number; out: any; err: string }> {
  const env = { ...process.env, DATABASE_URL: fx.app.config.DATABASE_URL, LOG_LEVEL: 'silent' };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [RADAR, ...args], { env });
    return { code: 0, out: JSON.parse(stdout), err: stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout, err: err.stderr };
  }
}

test('channel add, model set, key create and key disable, end to end', async () => {
  const channel = await radar(
    'relay',
    'channel',
    'add',
    '--name',
    'provider',
    '--base-url',
    fake.base,
    '--api-key',
    'provider-key',
    '--models',
    'm-chat',
    '--protocols',
    'chat',
    '--priority',
    '5',
    '--weight',
    '2',
  );
  assert.equal(channel.code, 0, channel.err);
  assert.deepEqual(Object.keys(channel.out), ['id']);
  const model = await radar('relay', 'model', 'set', 'm-chat', '--efforts', 'none,low,high');
  assert.deepEqual(model.out, { id: 'm-chat', efforts: ['none', 'low', 'high'], kind: 'chat', allowUnpriced: false });
  const created = await radar('relay', 'key', 'create', '--name', 'ci', '--models', 'm-chat');
  assert.equal(created.code, 0, created.err);
  const { id, key } = created.out as { id: string; key: string };
  assert.match(key, /^sk-[\w-]{43}$/);

  const stored = await fx.app.db.one('SELECT key_hash, row_to_json(k)::text AS row FROM relay_keys k WHERE id = $1', [
    id,
  ]);
  assert.deepEqual(stored.key_hash, createHash('sha256').update(key).digest());
  assert.equal(stored.row.includes(key), false, 'the key itself is never stored');

  // The channel's key goes upstream as the Bearer token, the client's never does.
  const r = await fx
    .client(key)
    .responses.create({ model: 'm-chat', input: 'hello', reasoning: { effort: 'minimal' } });
  assert.equal(r.status, 'completed');
  assert.equal(fake.received.at(-1)!.headers.authorization, 'Bearer provider-key');
  assert.equal(fake.received.at(-1)!.body.reasoning_effort, 'none');

  const disabled = await radar('relay', 'key', 'disable', '--id', id);
  assert.equal(disabled.code, 0, disabled.err);
  const disabledAt = Date.now();
  let status = 200;
  while (status === 200 && Date.now() - disabledAt < 3000) {
    status = (await call(fx.app.url, 'GET', '/v1/models', { bearer: key })).status;
  }
  const took = Date.now() - disabledAt;
  assert.equal(status, 401);
  assert.ok(took <= 1000, `a disabled key was still accepted ${took} ms after disable`);
});

test("group set, account group and key create --account put a key inside its account's group", async () => {
  const account = await createAccount(fx.app.db);
  const group = await radar('relay', 'group', 'set', 'cli-group', '--models', 'm-chat,m-other', '--rpm', '60');
  assert.equal(group.code, 0, group.err);
  assert.deepEqual(
    [group.out.name, group.out.models, group.out.requestsPerMinute, group.out.tokensPerMinute],
    ['cli-group', ['m-chat', 'm-other'], 60, null],
  );
  const moved = await radar('account', 'group', '--email', account.email.toUpperCase(), '--group', 'cli-group');
  assert.deepEqual(moved.out, { id: account.id, email: account.email, group: 'cli-group' });
  const outside = await radar(
    'relay',
    'key',
    'create',
    '--name',
    'k',
    '--models',
    'm-third',
    '--account',
    account.email,
  );
  assert.equal(outside.code, 2);
  assert.match(outside.err, /--models: the model 'm-third' is not in your group 'cli-group'/);
  const made = await radar('relay', 'key', 'create', '--name', 'k', '--models', '*', '--account', account.email);
  assert.equal(made.code, 0, made.err);
  const row = await fx.app.db.one('SELECT account_id, key_group FROM relay_keys WHERE id = $1', [made.out.id]);
  assert.deepEqual(row, { account_id: account.id, key_group: null });
  const price = await radar(
    'relay',
    'price',
    'set',
    'm-chat',
    '--currency',
    'USD',
    '--input',
    '0.15',
    '--output',
    '0.6',
  );
  assert.equal(price.code, 0, price.err);
  assert.deepEqual(
    [price.out.input, price.out.cachedInput, price.out.output, price.out.currency],
    ['0.15', '0.15', '0.6', 'USD'],
  );
  const limited = await radar(
    'relay',
    'key',
    'create',
    '--name',
    'k',
    '--models',
    '*',
    '--account',
    account.email,
    '--rpm',
    '5',
    '--budget',
    '1.5',
    '--currency',
    'USD',
    '--period',
    'month',
  );
  assert.equal(limited.code, 0, limited.err);
  assert.deepEqual(
    await fx.app.db.one('SELECT rpm, tpm, budget_nanos, budget_currency, budget_period FROM relay_keys WHERE id = $1', [
      limited.out.id,
    ]),
    { rpm: 5, tpm: null, budget_nanos: 1_500_000_000, budget_currency: 'USD', budget_period: 'month' },
  );
  const named = await radar('relay', 'key', 'create', '--name', 'k', '--models', '*', '--group', 'cli-group');
  assert.equal(
    (await fx.app.db.one('SELECT key_group FROM relay_keys WHERE id = $1', [named.out.id])).key_group,
    'cli-group',
  );
});

test('usage errors go to stderr with a non-zero exit and nothing on stdout', async () => {
  for (const args of [
    ['relay', 'channel', 'add', '--name', 'x', '--base-url', fake.base],
    ['relay', 'channel', 'add', '--name', 'x', '--base-url', 'not a url', '--models', 'm'],
    ['relay', 'channel', 'add', '--name', 'x', '--base-url', fake.base, '--models', 'm', '--protocols', 'grpc'],
    ['relay', 'model', 'set', 'm', '--kind', 'image'],
    ['relay', 'key', 'create', '--name', 'k', '--models', 'bad model'],
    ['relay', 'key', 'disable', '--id', '7c2b6e1e-0d5a-4a43-9b7c-2f3b2a9e0b11'],
    ['relay', 'key', 'create', '--name', 'k', '--models', '*', '--group', 'no-such-group'],
    ['relay', 'key', 'create', '--name', 'k', '--models', '*', '--group', 'default', '--account', 'a@example.com'],
    ['relay', 'group', 'set', 'g', '--models', 'm', '--rpm', '0'],
    ['account', 'group', '--email', 'nobody@example.com', '--group', 'default'],
    [
      'relay',
      'key',
      'create',
      '--name',
      'k',
      '--models',
      '*',
      '--budget',
      '1',
      '--currency',
      'USD',
      '--period',
      'week',
    ],
    ['relay', 'price', 'set', 'm', '--currency', 'USD', '--input', '-1', '--output', '1'],
  ]) {
    const r = await radar(...args);
    assert.notEqual(r.code, 0, args.join(' '));
    assert.equal(r.out, '');
    assert.match(r.err, /^radar: .+/);
  }
});
