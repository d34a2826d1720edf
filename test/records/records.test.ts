import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RESOURCES } from '../../src/auth/scopes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, createCredential, createSite } from '../helpers/fixtures.ts';
import { call, type Answer } from '../helpers/http.ts';
import { batch, ingestSite, postBatch, sampleRecord, type IngestSite } from '../ingest/fixtures.ts';

let app: TestApp;
let site: IngestSite;
const at = (day: number, hour = 0) => `2026-10-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00Z`;

before(async () => {
  app = await startTestApp({ workers: ['ingest'] });
  site = await ingestSite(app);
  // Events on days 1..7 (day 3 twice, ids out of order), one of them updated to revision 2.
  const events = [7, 1, 2, 5, 4, 6].map((d) => sampleRecord('events', `d${d}`, { occurred_at: at(d) }));
  events.push(
    sampleRecord('events', 'd3b', { occurred_at: at(3) }),
    sampleRecord('events', 'd3a', { occurred_at: '2026-10-03T08:00:00+08:00' }),
  );
  assert.equal((await postBatch(app, site, 'events', batch('events', 'ev-1', events))).status, 200);
  assert.equal(
    (
      await postBatch(
        app,
        site,
        'events',
        batch('events', 'ev-2', [
          sampleRecord('events', 'd5', { occurred_at: at(5), revision: 2, event_type: 'usage' }),
        ]),
      )
    ).status,
    200,
  );
});
after(() => app.close());

const list = (query = '', bearer = site.readKey, collection = 'events') =>
  call(app.url, 'GET', `/api/v1/sites/${site.siteId}/${collection}${query}`, { bearer });

function assertProblem(r: Answer, status: number, code: string): void {
  assert.equal(r.status, status, r.text);
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(r.body.code, code);
}

describe('reading records (CONTRACT §4)', () => {
  test('the envelope: latest revision only, exactly the fields ingested plus received_at, in UTC', async () => {
    const r = await list();
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['data', 'freshness', 'pagination']);
    assert.deepEqual(r.body.pagination, { limit: 50, offset: 0, total: 8, next_offset: null });
    assert.match(r.body.freshness.as_of, /Z$/);
    assert.match(r.body.freshness.last_ingested_at, /Z$/);
    assert.ok(Date.parse(r.body.freshness.last_ingested_at) <= Date.parse(r.body.freshness.as_of));
    assert.deepEqual(
      r.body.data.map((e: { event_id: string }) => e.event_id),
      ['evt_d1', 'evt_d2', 'evt_d3a', 'evt_d3b', 'evt_d4', 'evt_d5', 'evt_d6', 'evt_d7'],
    );
    const d5 = r.body.data[5];
    const { received_at, ...fields } = d5;
    assert.deepEqual(fields, {
      ...sampleRecord('events', 'd5', { occurred_at: at(5), revision: 2, event_type: 'usage' }),
    });
    assert.match(received_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(r.body.data[2].occurred_at, '2026-10-03T00:00:00Z', 'stored and returned in UTC');
    assert.equal(r.body.data[1].revision, 1, 'the defaulted revision is part of the record');
  });

  test('limit, offset and next_offset page through in order', async () => {
    const p1 = await list('?limit=3');
    assert.deepEqual(p1.body.pagination, { limit: 3, offset: 0, total: 8, next_offset: 3 });
    const p2 = await list('?limit=3&offset=3');
    assert.deepEqual(
      p2.body.data.map((e: { event_id: string }) => e.event_id),
      ['evt_d3b', 'evt_d4', 'evt_d5'],
    );
    const p3 = await list('?limit=3&offset=6');
    assert.deepEqual(p3.body.pagination, { limit: 3, offset: 6, total: 8, next_offset: null });
    assert.equal(p3.body.data.length, 2);
    const past = await list('?offset=10000');
    assert.deepEqual(past.body.data, []);
    assert.equal(past.body.pagination.next_offset, null);
  });

  test('from is inclusive, to is exclusive, both on occurred_at and in any zone', async () => {
    const r = await list(`?from=${encodeURIComponent('2026-10-03T08:00:00+08:00')}&to=${at(5)}`);
    assert.deepEqual(
      r.body.data.map((e: { event_id: string }) => e.event_id),
      ['evt_d3a', 'evt_d3b', 'evt_d4'],
    );
    assert.equal(r.body.pagination.total, 3);
    assert.equal((await list(`?from=${at(5)}&to=${at(5)}`)).body.pagination.total, 0);
  });

  test('bad query values are 400 naming each parameter', async () => {
    for (const [q, param] of [
      ['?limit=0', 'limit'],
      ['?limit=201', 'limit'],
      ['?limit=abc', 'limit'],
      ['?limit=', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?offset=-1', 'offset'],
      ['?offset=10001', 'offset'],
      ['?from=2026-10-01', 'from'],
      ['?from=2026-10-01T00:00:00', 'from'],
      ['?to=2025-02-29T00:00:00Z', 'to'],
      [`?from=${at(5)}&to=${at(4)}`, 'to'],
      ['?colour=red', 'colour'],
      ['?limit=1&limit=2', 'limit'],
    ] as const) {
      const r = await list(q);
      assertProblem(r, 400, 'validation_failed');
      assert.ok(
        r.body.errors.some((e: { path: string }) => e.path === `query.${param}`),
        `${q}: ${r.text}`,
      );
    }
  });
});

describe('who may read what (CONTRACT §2)', () => {
  test('each collection needs its scope', async () => {
    const scopes: Record<string, string[]> = {
      'customers:read': ['customers'],
      'events:read': ['events', 'campaigns', 'summaries'],
      'finance:read': ['orders', 'payments', 'refunds', 'subscriptions', 'costs', 'expenses'],
      'monitoring:read': ['observations'],
    };
    assert.deepEqual(Object.values(scopes).flat().sort(), [...RESOURCES].sort());
    for (const [scope, collections] of Object.entries(scopes)) {
      const key = await createCredential(app.url, site.account, site.siteId, 'read', [scope]);
      for (const c of RESOURCES) {
        const r = await list('', key, c);
        if (collections.includes(c)) assert.equal(r.status, 200, `${scope} reads ${c}: ${r.text}`);
        else assertProblem(r, 403, 'insufficient_scope');
      }
    }
  });

  test('401 without credential; ingest credentials cannot read; another site is 403; a session reads its own', async () => {
    assertProblem(await call(app.url, 'GET', `/api/v1/sites/${site.siteId}/events`), 401, 'unauthenticated');
    assertProblem(await list('', site.ingestKey), 403, 'insufficient_scope');
    const other = await createSite(app.url, await createAccount(app.db));
    assertProblem(
      await call(app.url, 'GET', `/api/v1/sites/${other}/events`, { bearer: site.readKey }),
      403,
      'site_forbidden',
    );
    assertProblem(
      await call(app.url, 'GET', `/api/v1/sites/${other}/events`, { session: site.account.session }),
      403,
      'site_forbidden',
    );
    const own = await call(app.url, 'GET', `/api/v1/sites/${site.siteId}/events`, { session: site.account.session });
    assert.equal(own.status, 200);
    assert.equal(own.body.pagination.total, 8);
  });

  test("a collection never shows another site's records, and an empty one has no freshness yet", async () => {
    const account = await createAccount(app.db);
    const empty = await createSite(app.url, account);
    const r = await call(app.url, 'GET', `/api/v1/sites/${empty}/events`, { session: account.session });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data, []);
    assert.equal(r.body.pagination.total, 0);
    assert.equal(r.body.freshness.last_ingested_at, null);
  });
});
