import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { exited, RADAR, radar } from '../helpers/cli.ts';
import { eventually } from '../helpers/eventually.ts';
import { createAccount, createCredential, createSite } from '../helpers/fixtures.ts';

/** `radar import` (issue #20) against a real front door and ingest worker. */

let app: TestApp;
let siteId: string;
let env: Record<string, string>;
let dir: string;

before(async () => {
  app = await startTestApp({ workers: ['ingest'] });
  const account = await createAccount(app.db);
  siteId = await createSite(app.url, account);
  const key = await createCredential(app.url, account, siteId, 'ingest', [
    'ingest:events:write',
    'ingest:orders:write',
    'ingest:receipt:read',
  ]);
  env = { RADAR_INGEST_KEY: key, RADAR_URL: app.url };
  dir = mkdtempSync(path.join(os.tmpdir(), 'radar-import-'));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await app?.close();
});

const stored = (prefix: string) =>
  app.db.one<{ n: number; imported: number }>(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE record->>'source' = 'import')::int AS imported
       FROM ingest_events WHERE site_id = $1 AND event_id LIKE $2`,
    [siteId, `${prefix}%`],
  );

function csvOf(prefix: string, rows: number): string {
  const lines = ['event_id,event_type,occurred_at,properties.channel,properties.quantity,received_at'];
  for (let i = 0; i < rows; i++)
    lines.push(`${prefix}${i},visit,2026-11-20T08:00:00Z,"search, paid",${i % 5},2026-11-21T00:00:00Z`);
  return `${lines.join('\r\n')}\r\n`;
}

test('a CSV file: records stored with source import, bad rows in the rejects file with reasons, a re-run stores nothing twice', async () => {
  const file = path.join(dir, 'events.csv');
  writeFileSync(
    file,
    `${csvOf('c_', 1200)}c_bad1,click,2026-11-20T08:00:00Z,,,\r\nc_bad2,visit,2026-11-20T08:00:00Z,,lots,\r\n`,
  );
  const first = await radar(['import', '--site', siteId, '--resource', 'events', file], env);
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(
    {
      read: first.json.read,
      stored: first.json.stored,
      unchanged: first.json.unchanged,
      rejected: first.json.rejected,
    },
    { read: 1202, stored: 1200, unchanged: 0, rejected: 2 },
  );
  assert.match(first.stderr, /radar import: 1,202\/1,202 records/, 'a plain progress line when not on a terminal');
  const rejects = readFileSync(first.json.rejectsFile, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    rejects.map((r) => [r.line, r.code]),
    [
      [1202, 'validation_failed'],
      [1203, 'unreadable'],
    ],
  );
  assert.match(rejects[0].reasons.join(), /\/event_type/);
  assert.match(rejects[1].reasons.join(), /properties\.quantity: "lots" is not a number/);
  assert.deepEqual(await stored('c_'), { n: 1200, imported: 1200 });

  const again = await radar(['import', '--site', siteId, '--resource', 'events', file], env);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(
    { stored: again.json.stored, replayedBatches: again.json.replayedBatches, importId: again.json.importId },
    { stored: 1200, replayedBatches: 3, importId: first.json.importId },
  );
  assert.deepEqual(await stored('c_'), { n: 1200, imported: 1200 });
  const { batches } = await app.db.one(
    `SELECT count(*)::int AS batches FROM ingest_batches WHERE site_id = $1 AND batch_id LIKE 'imp-%'`,
    [siteId],
  );
  assert.equal(batches, 3);
});

test('an import killed midway, run again: every record stored once', async () => {
  const file = path.join(dir, 'big.csv');
  const rows = 30_000;
  writeFileSync(file, csvOf('k_', rows));
  const child = spawn(process.execPath, [RADAR, 'import', '--site', siteId, '--resource', 'events', file], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: 'ignore',
  });
  await eventually(async () => ((await stored('k_')).n > 0 ? true : undefined), 60_000, 'the first batches stored');
  child.kill('SIGKILL');
  await exited(child);
  const before = (await stored('k_')).n;

  const resumed = await radar(['import', '--site', siteId, '--resource', 'events', file], env);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.json.stored, rows);
  assert.ok(resumed.json.replayedBatches >= before / 500, `${before} records stored before the kill are replays`);
  assert.deepEqual(await stored('k_'), { n: rows, imported: rows });
});

test('NDJSON on stdin with --import-id, of another family', async () => {
  const lines = Array.from({ length: 3 }, (_, i) =>
    JSON.stringify({
      order_id: `o_${i}`,
      amount_minor: 100 + i,
      currency: 'EUR',
      status: 'paid',
      occurred_at: '2026-11-20T08:00:00Z',
    }),
  );
  const rejectsFile = path.join(dir, 'orders.rejects.ndjson');
  const args = ['import', '--site', siteId, '--resource', 'orders', '--format', 'ndjson', '--import-id', 'orders-1'];
  args.push('--rejects', rejectsFile, '-');
  const r = await radar(args, env, `${lines.join('\n')}\n\nnot json\n`);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    { read: r.json.read, stored: r.json.stored, rejected: r.json.rejected },
    { read: 4, stored: 3, rejected: 1 },
  );
  const batch = await app.db.one(`SELECT batch_id FROM ingest_batches WHERE site_id = $1 AND resource = 'orders'`, [
    siteId,
  ]);
  assert.equal(batch.batch_id, 'imp-orders-1-orders-0');
  assert.equal(r.json.rejectsFile, rejectsFile);
});

test('usage errors name what to fix', async () => {
  const r = await radar(['import', '--site', siteId, '--resource', 'events', 'x.txt'], env);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--format must be csv or ndjson/);
  const noKey = await radar(['import', '--site', siteId, '--resource', 'events', 'x.csv'], { RADAR_URL: app.url });
  assert.equal(noKey.code, 2);
  assert.match(noKey.stderr, /RADAR_INGEST_KEY/);
});
