import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RadarClient } from 'radar/sdk';
import { expireExports, insertExport } from '../../src/exports/repo.ts';
import { recordColumns } from '../../src/exports/table.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/eventually.ts';
import { createAccount, createCredential, createSite, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import { waitForRollups } from '../analytics/fixtures.ts';

/** Issue #20 exports: asked through the API, made by the exports worker, downloaded streamed. */

let app: TestApp;
let account: TestAccount;
let siteId: string;
const EVENTS = 2300;

before(async () => {
  app = await startTestApp({ workers: ['ingest', 'rollup', 'exports'] });
  account = await createAccount(app.db);
  siteId = await createSite(app.url, account);
  const key = await createCredential(app.url, account, siteId, 'ingest', [
    'ingest:events:write',
    'ingest:orders:write',
    'ingest:receipt:read',
  ]);
  const sdk = new RadarClient({ baseUrl: app.url, siteId, key });
  for (let i = 0; i < EVENTS; i++) {
    await sdk.track({
      event_id: `e_${String(i).padStart(5, '0')}`,
      event_type: 'visit',
      occurred_at: new Date(Date.UTC(2026, 10, 1 + (i % 20), 8, 0, i % 60)).toISOString(),
      external_user_id: `u_${i % 40}`,
      // A comma, a quote and a line break: what CSV must quote.
      properties: { channel: i === 7 ? 'search, "paid"\nads' : 'search', quantity: i % 3 },
    });
  }
  await sdk.add('orders', {
    order_id: 'o_1',
    amount_minor: 1999,
    currency: 'USD',
    status: 'paid',
    occurred_at: '2026-11-03T00:00:00Z',
  });
  const c = await sdk.shutdown();
  assert.equal(c.applied, EVENTS + 1);
  await waitForRollups(app, siteId);
});
after(() => app?.close());

const asSession = (method: string, path: string, body?: unknown) =>
  call(app.url, method, `/api/v1/sites/${siteId}${path}`, { session: account.session, body });

/** Asks for an export and waits until the worker has made it. */
async function made(body: Record<string, unknown>) {
  const created = await asSession('POST', '/exports', body);
  assert.equal(created.status, 200, created.text);
  assert.equal(created.body.status, 'queued');
  return eventually(
    async () => {
      const r = await asSession('GET', `/exports/${created.body.id}`);
      assert.notEqual(r.body.status, 'failed', r.text);
      return r.body.status === 'completed' ? r.body : undefined;
    },
    60_000,
    'the export to complete',
  );
}

async function download(url: string, auth: { session?: string; bearer?: string } = { session: account.session }) {
  const res = await fetch(app.url + url, {
    headers: auth.bearer
      ? { authorization: `Bearer ${auth.bearer}` }
      : { cookie: `__Host-radar_session=${auth.session}` },
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A minimal RFC 4180 reader, enough to check what the export wrote. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += ch;
  }
  return rows;
}

test('events as CSV: every record once, in the reads order, columns from the schema, quoted where needed', async () => {
  const done = await made({ kind: 'records', resource: 'events', format: 'csv' });
  assert.deepEqual({ rowsDone: done.rowsDone, rowsTotal: done.rowsTotal }, { rowsDone: EVENTS, rowsTotal: EVENTS });
  assert.ok(done.expiresAt > done.completedAt);
  const file = await download(done.downloadUrl);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.match(file.headers.get('content-disposition') ?? '', /^attachment; filename="radar-events-.*\.csv"$/);
  assert.equal(Buffer.byteLength(file.text), done.bytes);
  const [header, ...rows] = parseCsv(file.text);
  assert.deepEqual(header, recordColumns('events'));
  assert.equal(rows.length, EVENTS);
  const col = (name: string) => header!.indexOf(name);
  assert.equal(new Set(rows.map((r) => r[col('event_id')])).size, EVENTS);
  const tricky = rows.find((r) => r[col('event_id')] === 'e_00007')!;
  assert.equal(tricky[col('properties.channel')], 'search, "paid"\nads');
  assert.equal(tricky[col('source')], 'server_sdk');
  const order = rows.map((r) => `${r[col('occurred_at')]} ${r[col('event_id')]}`);
  assert.deepEqual(order, [...order].sort(), 'ordered by occurred_at, then id');
});

test('events as NDJSON within a window: each line is what GET /events shows', async () => {
  const window = { from: '2026-11-03T00:00:00Z', to: '2026-11-05T00:00:00Z' };
  const done = await made({ kind: 'records', resource: 'events', format: 'ndjson', ...window });
  const lines = (await download(done.downloadUrl)).text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  const page = await asSession('GET', `/events?from=${window.from}&to=${window.to}&limit=200`);
  assert.equal(lines.length, page.body.pagination.total);
  assert.deepEqual(lines.slice(0, 200), page.body.data);
});

test('an analytics view as CSV and NDJSON: its rows, with coverage and currencies kept on the export', async () => {
  const query = { from: '2026-11-01', to: '2026-11-21', tz: 'UTC', interval: 'week' };
  const json = await made({ kind: 'analytics', view: 'timeseries', format: 'ndjson', ...query });
  const api = await asSession('GET', `/analytics/timeseries?${new URLSearchParams(query)}`);
  assert.equal(api.status, 200, api.text);
  const lines = (await download(json.downloadUrl)).text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    lines,
    api.body.data.buckets.map((b: object) => ({ section: 'buckets', interval: 'week', ...b })),
  );
  assert.deepEqual(json.meta.coverage, api.body.coverage);

  const csv = await made({ kind: 'analytics', view: 'overview', format: 'csv', from: '2026-11-01', to: '2026-11-21' });
  const [header, row, ...rest] = parseCsv((await download(csv.downloadUrl)).text);
  assert.equal(rest.length, 0, 'overview is one row');
  assert.ok(header!.includes('visits'), header!.join());
  assert.equal(row![header!.indexOf('visits')], String(EVENTS));
});

test('bad requests are 400 with every violation; credentials cannot create exports', async () => {
  const bad = await asSession('POST', '/exports', {
    kind: 'analytics',
    view: 'overview',
    format: 'xlsx',
    interval: 'day',
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path).sort(), ['/format', '/interval']);
  const window = await asSession('POST', '/exports', {
    kind: 'records',
    resource: 'events',
    format: 'csv',
    from: '2026-11-05T00:00:00Z',
    to: '2026-11-01T00:00:00Z',
  });
  assert.equal(window.status, 400);
  const reader = await createCredential(app.url, account, siteId, 'read', ['exports:read', 'events:read']);
  const byKey = await call(app.url, 'POST', `/api/v1/sites/${siteId}/exports`, {
    bearer: reader,
    body: { kind: 'records', resource: 'events', format: 'csv' },
  });
  assert.equal(byKey.status, 403);
});

test('a credential downloads only what it may read; not ready is 409; an expired file is deleted and 410', async () => {
  const orders = await made({ kind: 'records', resource: 'orders', format: 'ndjson' });
  const events = await made({ kind: 'records', resource: 'events', format: 'ndjson', from: '2026-11-20T00:00:00Z' });
  const reader = await createCredential(app.url, account, siteId, 'read', ['exports:read', 'events:read']);
  assert.equal((await download(orders.downloadUrl, { bearer: reader })).status, 403, 'orders need finance:read');
  assert.equal((await download(events.downloadUrl, { bearer: reader })).status, 200);
  const listed = await call(app.url, 'GET', `/api/v1/sites/${siteId}/exports?limit=2`, { bearer: reader });
  assert.deepEqual(
    listed.body.data.map((e: { id: string }) => e.id),
    [events.id, orders.id],
  );

  const waiting = await insertExport(app.db, siteId, { kind: 'records', resource: 'events', format: 'csv' });
  const early = await download(`/api/v1/sites/${siteId}/exports/${waiting.id}/download`);
  assert.equal(early.status, 409);
  assert.match(early.text, /export_not_ready/);

  await app.db.none(`UPDATE exports SET expires_at = now() - interval '1 second' WHERE id = $1`, [events.id]);
  assert.equal(await expireExports(app.db), 1);
  const gone = await asSession('GET', `/exports/${events.id}`);
  assert.deepEqual(
    { status: gone.body.status, downloadUrl: gone.body.downloadUrl },
    { status: 'expired', downloadUrl: null },
  );
  assert.equal((await download(events.downloadUrl)).status, 410);
  const { n } = await app.db.one('SELECT count(*)::int AS n FROM export_chunks WHERE export_id = $1', [events.id]);
  assert.equal(n, 0);
});
