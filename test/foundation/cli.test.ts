import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createDb } from '../../src/db/connection.ts';
import { radar } from '../helpers/cli.ts';
import { PG_BASE } from '../helpers/services.ts';

const dbName = `radar_cli_${randomBytes(4).toString('hex')}`;
const url = new URL(PG_BASE);
url.pathname = `/${dbName}`;
const env = { DATABASE_URL: url.toString(), LOG_LEVEL: 'silent' };
const admin = createDb({ url: PG_BASE, poolSize: 1, applicationName: 'radar-cli-test' });

before(async () => {
  await admin.none('DROP DATABASE IF EXISTS $1:name', [dbName]);
});
after(async () => {
  await admin.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [dbName]);
  await admin.$pool.end();
});

test('migrate creates the database, applies each file once, and says so', async () => {
  const first = await radar(['migrate'], env);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.json.created_database, true);
  assert.ok(first.json.applied.includes('0001_foundation.sql'));
  const second = await radar(['migrate'], env);
  assert.equal(second.code, 0);
  assert.equal(second.json.created_database, false);
  assert.deepEqual(second.json.applied, []);
  assert.equal(second.json.already_applied, first.json.applied.length);
});

test('account create prints {id, email, admin}; a duplicate fails on stderr', async () => {
  const r = await radar(
    ['account', 'create', '--email', 'Owner@Example.com', '--name', 'Owner', '--password-stdin', '--admin'],
    env,
    'correct horse battery\n',
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(Object.keys(r.json).sort(), ['admin', 'email', 'id']);
  assert.equal(r.json.admin, true);
  assert.equal(r.stdout.trim().split('\n').length, 1, 'exactly one JSON object');

  const dup = await radar(['account', 'create', '--email', 'owner@example.com'], env);
  assert.notEqual(dup.code, 0);
  assert.equal(dup.stdout, '');
  assert.match(dup.stderr, /already exists/);
});

test('account create refuses a bad email, a short password and unknown flags', async () => {
  const badEmail = await radar(['account', 'create', '--email', 'nope'], env);
  assert.notEqual(badEmail.code, 0);
  assert.match(badEmail.stderr, /--email/);
  const shortPw = await radar(['account', 'create', '--email', 'x@example.com', '--password-stdin'], env, 'short');
  assert.notEqual(shortPw.code, 0);
  assert.match(shortPw.stderr, /8 characters/);
  const unknown = await radar(['account', 'create', '--email', 'x@example.com', '--root'], env);
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stderr, /--root|unknown/i);
});

test('session create prints a token with the requested lifetime', async () => {
  const r = await radar(['session', 'create', '--email', 'owner@example.com', '--ttl-hours', '2'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(Object.keys(r.json).sort(), ['expires_at', 'token']);
  const ttl = Date.parse(r.json.expires_at) - Date.now();
  assert.ok(ttl > 7_000_000 && ttl <= 7_200_000, `ttl ${ttl}`);
  const missing = await radar(['session', 'create', '--email', 'ghost@example.com'], env);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /no account/);
});

test('site review records the admin decision; bad input fails clearly', async () => {
  const db = createDb({ url: env.DATABASE_URL, poolSize: 1, applicationName: 'radar-cli-test' });
  try {
    const owner = await db.one("SELECT id FROM accounts WHERE lower(email) = 'owner@example.com'");
    const site = await db.one(
      "INSERT INTO sites (account_id, name, website_url, description, category) VALUES ($1, 'S', 'https://s.example', 'd', 'chat') RETURNING id",
      [owner.id],
    );
    const r = await radar(['site', 'review', '--site', site.id, '--decision', 'approved'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json.reviewStatus, 'approved');
    const stored = await db.one('SELECT review_status FROM sites WHERE id = $1', [site.id]);
    assert.equal(stored.review_status, 'approved');

    const bad = await radar(['site', 'review', '--site', site.id, '--decision', 'maybe'], env);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /approved or rejected/);
    const ghost = await radar(
      ['site', 'review', '--site', '00000000-0000-4000-8000-000000000000', '--decision', 'rejected'],
      env,
    );
    assert.notEqual(ghost.code, 0);
  } finally {
    await db.$pool.end();
  }
});

test('a bad environment variable stops the command, naming the variable', async () => {
  const r = await radar(['migrate'], { ...env, PORT: 'eighty' });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /PORT/);
});

test('an unknown command lists the commands', async () => {
  const r = await radar(['frobnicate'], env);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command/);
  assert.match(r.stderr, /account create/);
});
