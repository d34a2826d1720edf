import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { BufferFullError, RadarClient, RecordInvalidError, type UndeliveredRecord } from 'radar/sdk';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, createCredential, createSite } from '../helpers/fixtures.ts';

/** The SDK against a real front door and worker: what a caller sees of refusals and of a full buffer. */

let app: TestApp;
let siteId: string;
let key: string;

before(async () => {
  app = await startTestApp({ workers: ['ingest'] });
  const account = await createAccount(app.db);
  siteId = await createSite(app.url, account);
  key = await createCredential(app.url, account, siteId, 'ingest', [
    'ingest:events:write',
    'ingest:orders:write',
    'ingest:receipt:read',
  ]);
});
after(() => app?.close());

const visit = (id: string, revision = 1) =>
  ({ event_id: id, event_type: 'visit', occurred_at: '2026-11-20T08:00:00Z', revision }) as const;

test('records are stored with source server_sdk and counted; a flush resolves when they are acknowledged', async () => {
  const client = new RadarClient({ baseUrl: app.url, siteId, key, flushIntervalMs: 0 });
  for (let i = 0; i < 1200; i++) await client.track(visit(`a_${i}`));
  await client.add('orders', {
    order_id: 'o_1',
    amount_minor: 100,
    currency: 'EUR',
    status: 'paid',
    occurred_at: '2026-11-20T08:00:00Z',
  });
  const c = await client.shutdown();
  assert.deepEqual(
    {
      added: c.added,
      batches: c.batches,
      acknowledged: c.acknowledged,
      applied: c.applied,
      rejected: c.rejected,
      failed: c.failed,
    },
    { added: 1201, batches: 4, acknowledged: 1201, applied: 1201, rejected: 0, failed: 0 },
  );
  const rows = await app.db.one(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE record->>'source' = 'server_sdk')::int AS sdk
       FROM ingest_events WHERE site_id = $1 AND event_id LIKE 'a\\_%'`,
    [siteId],
  );
  assert.deepEqual(rows, { n: 1200, sdk: 1200 });
  await assert.rejects(client.track(visit('late')), /shut down/);
});

test('a conflicting record is reported on its own and the rest of its batch is stored', async () => {
  const first = new RadarClient({ baseUrl: app.url, siteId, key });
  await first.track(visit('c_1', 2));
  await first.shutdown();

  const client = new RadarClient({ baseUrl: app.url, siteId, key, flushIntervalMs: 0 });
  const refused: UndeliveredRecord[] = [];
  client.on('rejected', (r: UndeliveredRecord) => refused.push(r));
  await client.track(visit('c_0'));
  await client.track(visit('c_1', 1)); // stale: revision 2 is stored
  await client.track(visit('c_2'));
  const c = await client.shutdown();

  assert.equal(refused.length, 1);
  assert.equal(refused[0]?.record.event_id, 'c_1');
  assert.equal(refused[0]?.code, 'revision_stale');
  assert.match(refused[0]?.reasons.join(), /revision/);
  assert.deepEqual(
    { rejected: c.rejected, applied: c.applied, batches: c.batches },
    { rejected: 1, applied: 2, batches: 2 },
  );
  const ids = await app.db.map(
    `SELECT event_id FROM ingest_events WHERE site_id = $1 AND event_id IN ('c_0', 'c_2') ORDER BY 1`,
    [siteId],
    (r: { event_id: string }) => r.event_id,
  );
  assert.deepEqual(ids, ['c_0', 'c_2']);
});

test('a record the schema refuses throws at add() with its reasons, and nothing is sent', async () => {
  const client = new RadarClient({ baseUrl: app.url, siteId, key });
  await assert.rejects(
    // @ts-expect-error: event_type is not one the API knows, which the types say too
    client.track({ event_id: 'bad', event_type: 'click', occurred_at: '2026-11-20T08:00:00Z' }),
    (err: RecordInvalidError) =>
      err instanceof RecordInvalidError && err.reasons.some((r) => r.startsWith('/event_type')),
  );
  assert.equal((await client.shutdown()).added, 0);
});

test("a full buffer under whenFull 'reject' refuses the add; under 'wait' the add waits for room", async () => {
  // Nothing answers on this port: batches stay in flight, retrying, so the buffer fills up.
  const dead = 'http://127.0.0.1:9';
  const rejecting = new RadarClient({
    baseUrl: dead,
    siteId,
    key,
    batchSize: 2,
    maxBufferedRecords: 4,
    whenFull: 'reject',
  });
  rejecting.on('failed', () => undefined);
  for (let i = 0; i < 4; i++) await rejecting.track(visit(`f_${i}`));
  await assert.rejects(rejecting.track(visit('f_4')), BufferFullError);
  assert.equal(rejecting.counters().added, 4);
  const failed = await rejecting.shutdown({ timeoutMs: 0 });
  assert.deepEqual({ failed: failed.failed, acknowledged: failed.acknowledged }, { failed: 4, acknowledged: 0 });

  const waiting = new RadarClient({ baseUrl: dead, siteId, key, batchSize: 2, maxBufferedRecords: 4 });
  const undelivered: UndeliveredRecord[] = [];
  waiting.on('failed', (r: UndeliveredRecord) => undelivered.push(r));
  for (let i = 0; i < 4; i++) await waiting.track(visit(`w_${i}`));
  let fifthBuffered = false;
  const fifth = waiting.track(visit('w_4')).then(() => (fifthBuffered = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(fifthBuffered, false, 'the fifth add waits while four records are held');
  const shutdown = waiting.shutdown({ timeoutMs: 0 });
  await assert.rejects(fifth, /shut down/);
  const c = await shutdown;
  assert.equal(c.failed, 4);
  assert.equal(undelivered.length, 4);
  assert.equal(undelivered[0]?.code, 'retries_exhausted');
});

test('without a listener, an undelivered record is a process warning, not a silent drop', async () => {
  const client = new RadarClient({ baseUrl: 'http://127.0.0.1:9', siteId, key });
  await client.track(visit('x_1'));
  const warned = once(process, 'warning');
  await client.shutdown({ timeoutMs: 0 });
  const [warning] = (await warned) as [Error];
  assert.equal(warning.name, 'RadarClient');
  assert.match(warning.message, /events record failed/);
});

test("plain Node loads the SDK the package exports (compiled by npm install), without Radar's TypeScript loader", async () => {
  // No tsx and no `radar-source` condition: what a caller's program resolves `radar/sdk` to.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const m = await import('radar/sdk'); console.log(typeof m.RadarClient, typeof m.RecordInvalidError)",
    ],
    { cwd: new URL('../..', import.meta.url) },
  );
  assert.equal(stdout.trim(), 'function function');
});
