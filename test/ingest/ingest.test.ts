import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RESOURCES } from '../../src/auth/scopes.ts';
import { canonicalJson, sha256 } from '../../src/ingest/canonical.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, createCredential, createSite } from '../helpers/fixtures.ts';
import { call, type Answer } from '../helpers/http.ts';
import { batch, ingestSite, postBatch, sampleRecord, type IngestSite } from './fixtures.ts';
import { eventually } from '../helpers/eventually.ts';

let app: TestApp;
let site: IngestSite;
before(async () => {
  app = await startTestApp({ workers: ['ingest'] });
  site = await ingestSite(app);
});
after(() => app.close());

function assertProblem(r: Answer, status: number, code: string): void {
  assert.equal(r.status, status, r.text);
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(r.body.code, code);
}

const stored = (table: string, idColumn: string, ids: string[]) =>
  app.db.any(
    `SELECT ${idColumn} AS id, revision, record, xmin::text AS xmin FROM ${table} WHERE site_id = $1 AND ${idColumn} = ANY($2) ORDER BY ${idColumn}`,
    [site.siteId, ids],
  );

describe('a batch is applied and answered with its receipt (CONTRACT §3)', () => {
  test('200 with the completed receipt; rows hold typed columns and the record as ingested', async () => {
    const r = await postBatch(
      app,
      site,
      'orders',
      batch('orders', 'orders-1', [sampleRecord('orders', 1), sampleRecord('orders', 2, { revision: 3 })]),
    );
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), [
      'applied',
      'batch_id',
      'completed_at',
      'digest',
      'received',
      'received_at',
      'replay',
      'resource',
      'status',
      'unchanged',
    ]);
    assert.equal(r.body.status, 'completed');
    assert.equal(r.body.resource, 'orders');
    assert.equal(r.body.received, 2);
    assert.equal(r.body.applied, 2);
    assert.equal(r.body.unchanged, 0);
    assert.equal(r.body.replay, false);
    assert.match(r.body.digest, /^sha256:[0-9a-f]{64}$/);
    assert.match(r.body.received_at, /Z$/);
    assert.match(r.body.completed_at, /Z$/);
    const row = await app.db.one(
      'SELECT amount_minor, currency, status, plan_id, occurred_at, revision, record, batch_id FROM ingest_orders WHERE site_id = $1 AND order_id = $2',
      [site.siteId, 'ord_2'],
    );
    assert.equal(row.amount_minor, 1999);
    assert.equal(row.currency, 'USD');
    assert.equal(row.revision, 3);
    assert.equal(row.batch_id, 'orders-1');
    assert.equal(row.occurred_at.toISOString(), '2026-11-20T00:00:00.000Z');
    assert.deepEqual(row.record, {
      ...sampleRecord('orders', 2, { revision: 3 }),
      occurred_at: '2026-11-20T00:00:00Z',
    });
  });

  test('every resource can be ingested', async () => {
    for (const resource of RESOURCES) {
      if (resource === 'orders') continue;
      const r = await postBatch(
        app,
        site,
        resource,
        batch(resource, `all-${resource}`, [sampleRecord(resource, 'all')]),
      );
      assert.equal(r.status, 200, `${resource}: ${r.text}`);
      assert.equal(r.body.applied, 1);
    }
  });

  test('an identical retry is a replay: 200 with the stored receipt; omitted revision equals revision 1', async () => {
    const records = [sampleRecord('customers', 'r1'), sampleRecord('customers', 'r2')];
    const first = await postBatch(app, site, 'customers', batch('customers', 'replay-1', records));
    assert.equal(first.status, 200, first.text);
    const before = await stored('ingest_customers', 'customer_id', ['cus_r1', 'cus_r2']);
    const again = await postBatch(
      app,
      site,
      'customers',
      batch(
        'customers',
        'replay-1',
        records.map((r) => ({ ...r, revision: 1 })),
      ),
    );
    assert.equal(again.status, 200, again.text);
    assert.deepEqual({ ...again.body, replay: false }, first.body);
    assert.equal(again.body.replay, true);
    assert.deepEqual(
      await stored('ingest_customers', 'customer_id', ['cus_r1', 'cus_r2']),
      before,
      'a replay writes nothing',
    );
  });

  test('the same batch id with other records is 409 batch_conflict and changes nothing', async () => {
    await postBatch(app, site, 'costs', batch('costs', 'conflict-1', [sampleRecord('costs', 'c1')]));
    const r = await postBatch(
      app,
      site,
      'costs',
      batch('costs', 'conflict-1', [sampleRecord('costs', 'c1', { amount_minor: 1 })]),
    );
    assertProblem(r, 409, 'batch_conflict');
    const row = await app.db.one('SELECT amount_minor FROM ingest_costs WHERE site_id = $1 AND cost_id = $2', [
      site.siteId,
      'cost_c1',
    ]);
    assert.equal(row.amount_minor, 12000);
  });

  test('the same batch id on another resource is another batch', async () => {
    const a = await postBatch(app, site, 'events', batch('events', 'shared-id', [sampleRecord('events', 'shared')]));
    const b = await postBatch(
      app,
      site,
      'campaigns',
      batch('campaigns', 'shared-id', [sampleRecord('campaigns', 'shared')]),
    );
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    assert.equal(b.body.replay, false);
  });
});

describe('revisions (CONTRACT §3)', () => {
  test('higher applies, equal and identical is unchanged, equal and different is revision_conflict, lower is revision_stale', async () => {
    const post = (id: string, records: Record<string, unknown>[]) =>
      postBatch(app, site, 'subscriptions', batch('subscriptions', id, records));
    assert.equal(
      (
        await post('rev-1', [
          sampleRecord('subscriptions', 'a', { revision: 2 }),
          sampleRecord('subscriptions', 'b', { revision: 2 }),
        ])
      ).status,
      200,
    );

    const up = await post('rev-2', [
      sampleRecord('subscriptions', 'a', { revision: 3, status: 'past_due' }),
      sampleRecord('subscriptions', 'b', { revision: 2 }),
    ]);
    assert.equal(up.status, 200, up.text);
    assert.equal(up.body.applied, 1);
    assert.equal(up.body.unchanged, 1);

    const before = await stored('ingest_subscriptions', 'subscription_id', ['sub_a', 'sub_b', 'sub_new']);
    const bad = await post('rev-3', [
      sampleRecord('subscriptions', 'new'),
      sampleRecord('subscriptions', 'a', { revision: 3, status: 'cancelled' }),
      sampleRecord('subscriptions', 'b', { revision: 1 }),
    ]);
    assertProblem(bad, 409, 'revision_conflict');
    assert.deepEqual(
      bad.body.errors.map((e: { path: string }) => e.path),
      ['/records/1', '/records/2'],
    );
    assert.match(bad.body.errors[1].message, /revision_stale/);
    assert.deepEqual(
      await stored('ingest_subscriptions', 'subscription_id', ['sub_a', 'sub_b', 'sub_new']),
      before,
      'a conflict anywhere applies nothing',
    );

    const stale = await post('rev-4', [sampleRecord('subscriptions', 'b', { revision: 1 })]);
    assertProblem(stale, 409, 'revision_stale');
    assert.deepEqual(
      stale.body.errors.map((e: { path: string }) => e.path),
      ['/records/0'],
    );

    // A rejected batch keeps its answer: the identical retry gets the same 409, a GET shows why.
    const retry = await post('rev-3', [
      sampleRecord('subscriptions', 'new'),
      sampleRecord('subscriptions', 'a', { revision: 3, status: 'cancelled' }),
      sampleRecord('subscriptions', 'b', { revision: 1 }),
    ]);
    assertProblem(retry, 409, 'revision_conflict');
    const receipt = await call(
      app.url,
      'GET',
      `/api/v1/sites/${site.siteId}/ingest/receipts/rev-3?resource=subscriptions`,
      { bearer: site.ingestKey },
    );
    assert.equal(receipt.body.status, 'rejected');
    assert.equal(receipt.body.applied, 0);
    assert.equal(receipt.body.problem.code, 'revision_conflict');
  });

  test('new records beside stored ones: the rules apply whichever way the batch is applied, and digests agree', async () => {
    // New ids sorting before and after the stored one: the fresh insert has written rows by
    // the time it meets the stored record, and none of them may stay.
    const post = (id: string, records: Record<string, unknown>[]) =>
      postBatch(app, site, 'events', batch('events', id, records));
    assert.equal((await post('mix-1', [sampleRecord('events', 'mix_m')])).status, 200);

    const mixed = await post('mix-2', [
      sampleRecord('events', 'mix_a'),
      sampleRecord('events', 'mix_m', { revision: 1 }),
      sampleRecord('events', 'mix_z', { event_type: 'usage' }),
    ]);
    assert.equal(mixed.status, 200, mixed.text);
    assert.deepEqual([mixed.body.applied, mixed.body.unchanged], [2, 1]);

    const before = await stored('ingest_events', 'event_id', ['evt_mix_0', 'evt_mix_m', 'evt_mix_y']);
    const bad = await post('mix-3', [
      sampleRecord('events', 'mix_0'),
      sampleRecord('events', 'mix_m', { event_type: 'usage' }),
      sampleRecord('events', 'mix_y'),
    ]);
    assertProblem(bad, 409, 'revision_conflict');
    assert.deepEqual(
      bad.body.errors.map((e: { path: string }) => e.path),
      ['/records/1'],
    );
    assert.deepEqual(
      await stored('ingest_events', 'event_id', ['evt_mix_0', 'evt_mix_m', 'evt_mix_y']),
      before,
      'nothing of the batch stays',
    );

    const up = await post('mix-4', [
      sampleRecord('events', 'mix_0'),
      sampleRecord('events', 'mix_m', { revision: 2, event_type: 'usage' }),
    ]);
    assert.equal(up.status, 200, up.text);
    assert.deepEqual([up.body.applied, up.body.unchanged], [2, 0]);

    const rows = await app.db.any<{ id: string; record: unknown; content_digest: Buffer }>(
      "SELECT event_id AS id, record, content_digest FROM ingest_events WHERE site_id = $1 AND event_id LIKE 'evt\\_mix\\_%' ORDER BY event_id",
      [site.siteId],
    );
    assert.deepEqual(
      rows.map((r) => r.id),
      ['evt_mix_0', 'evt_mix_a', 'evt_mix_m', 'evt_mix_z'],
    );
    for (const r of rows)
      assert.ok(r.content_digest.equals(sha256(canonicalJson(r.record))), `${r.id}: digest of its canonical JSON`);
  });

  test('two concurrent batches with the same record and revision but other content: one applies, the other conflicts', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = await Promise.all([
        postBatch(
          app,
          site,
          'campaigns',
          batch('campaigns', `race-a-${round}`, [sampleRecord('campaigns', `race${round}`, { name: 'A' })]),
        ),
        postBatch(
          app,
          site,
          'campaigns',
          batch('campaigns', `race-b-${round}`, [sampleRecord('campaigns', `race${round}`, { name: 'B' })]),
        ),
      ]);
      assert.deepEqual([a.status, b.status].sort(), [200, 409], `${a.text} ${b.text}`);
      const winner = a.status === 200 ? 'A' : 'B';
      const row = await app.db.one('SELECT name FROM ingest_campaigns WHERE site_id = $1 AND campaign_id = $2', [
        site.siteId,
        `cmp_race${round}`,
      ]);
      assert.equal(row.name, winner);
    }
  });
});

describe('400 and 422 (CONTRACT §2, §3)', () => {
  test('a body that breaks the schema is 400 listing every violation; nothing is stored', async () => {
    const r = await postBatch(app, site, 'events', {
      schema_version: 'orders.v1',
      batch_id: 'bad-1',
      records: [sampleRecord('events', 'x', { properties: { colour: 'red' } }), { event_id: 'y' }],
    });
    assertProblem(r, 400, 'validation_failed');
    const paths = r.body.errors.map((e: { path: string }) => e.path);
    for (const p of [
      '/schema_version',
      '/records/0/properties/colour',
      '/records/1/event_type',
      '/records/1/source',
      '/records/1/occurred_at',
    ])
      assert.ok(paths.includes(p), `${p} in ${paths}`);
    assert.equal(
      (await app.db.one('SELECT count(*)::int AS n FROM ingest_batches WHERE batch_id = $1', ['bad-1'])).n,
      0,
    );
    assertProblem(
      await call(app.url, 'POST', `/api/v1/sites/${site.siteId}/ingest/events`, {
        bearer: site.ingestKey,
        raw: '{"records": [',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_json',
    );
  });

  test('semantic violations visible in the batch are 422 listing all of them; nothing is stored', async () => {
    const r = await postBatch(
      app,
      site,
      'expenses',
      batch('expenses', 'sem-1', [
        sampleRecord('expenses', 1, { period_end: '2026-01-01T00:00:00Z' }),
        sampleRecord('expenses', 2, { occurred_at: '2099-01-01T00:00:00Z' }),
        sampleRecord('expenses', 1),
      ]),
    );
    assertProblem(r, 422, 'semantic_invalid');
    assert.deepEqual(
      r.body.errors.map((e: { path: string }) => e.path),
      ['/records/0/period_end', '/records/1/occurred_at', '/records/2/expense_id'],
    );
    assert.equal(
      (await app.db.one('SELECT count(*)::int AS n FROM ingest_batches WHERE batch_id = $1', ['sem-1'])).n,
      0,
    );
  });

  test('payments and refunds that disagree with the stored order or payment are 422 and apply nothing', async () => {
    assert.equal(
      (await postBatch(app, site, 'orders', batch('orders', 'ref-orders', [sampleRecord('orders', 'm1')]))).status,
      200,
    );
    const payment = await postBatch(
      app,
      site,
      'payments',
      batch('payments', 'ref-pay-bad', [
        sampleRecord('payments', 'm2'),
        sampleRecord('payments', 'm1', { currency: 'EUR' }),
      ]),
    );
    assertProblem(payment, 422, 'semantic_invalid');
    assert.deepEqual(
      payment.body.errors.map((e: { path: string }) => e.path),
      ['/records/1/currency'],
    );
    assert.equal(
      (
        await app.db.one(
          "SELECT count(*)::int AS n FROM ingest_payments WHERE site_id = $1 AND payment_id IN ('pay_m1', 'pay_m2')",
          [site.siteId],
        )
      ).n,
      0,
    );

    assert.equal(
      (await postBatch(app, site, 'payments', batch('payments', 'ref-pay', [sampleRecord('payments', 'm1')]))).status,
      200,
    );
    const refund = await postBatch(
      app,
      site,
      'refunds',
      batch('refunds', 'ref-refund', [
        sampleRecord('refunds', 'ok', { payment_id: 'pay_m1' }),
        sampleRecord('refunds', 'big', { payment_id: 'pay_m1', amount_minor: 2000 }),
        sampleRecord('refunds', 'eur', { payment_id: 'pay_m1', currency: 'EUR' }),
      ]),
    );
    assertProblem(refund, 422, 'semantic_invalid');
    assert.deepEqual(
      refund.body.errors.map((e: { path: string }) => e.path),
      ['/records/1/amount_minor', '/records/2/currency'],
    );
    assert.equal(
      (
        await app.db.one(
          "SELECT count(*)::int AS n FROM ingest_refunds WHERE site_id = $1 AND refund_id IN ('ref_ok', 'ref_big', 'ref_eur')",
          [site.siteId],
        )
      ).n,
      0,
    );
  });
});

describe('who may ingest (CONTRACT §2)', () => {
  test('401 without a credential, 403 without the resource scope, with a read credential, or on another site', async () => {
    const body = batch('events', 'auth-1', [sampleRecord('events', 'auth')]);
    assertProblem(
      await call(app.url, 'POST', `/api/v1/sites/${site.siteId}/ingest/events`, { body }),
      401,
      'unauthenticated',
    );
    const narrow = await createCredential(app.url, site.account, site.siteId, 'ingest', ['ingest:orders:write']);
    assertProblem(
      await call(app.url, 'POST', `/api/v1/sites/${site.siteId}/ingest/events`, { bearer: narrow, body }),
      403,
      'insufficient_scope',
    );
    assertProblem(
      await call(app.url, 'POST', `/api/v1/sites/${site.siteId}/ingest/events`, { bearer: site.readKey, body }),
      403,
      'insufficient_scope',
    );
    const other = await createSite(app.url, await createAccount(app.db));
    assertProblem(
      await call(app.url, 'POST', `/api/v1/sites/${other}/ingest/events`, { bearer: site.ingestKey, body }),
      403,
      'site_forbidden',
    );
    assert.equal(
      (await app.db.one('SELECT count(*)::int AS n FROM ingest_batches WHERE batch_id = $1', ['auth-1'])).n,
      0,
    );
  });

  test('the receipt needs ingest:receipt:read, a known resource, and answers 404 for an unknown batch', async () => {
    const path = `/api/v1/sites/${site.siteId}/ingest/receipts/orders-1`;
    const onlyWrite = await createCredential(app.url, site.account, site.siteId, 'ingest', ['ingest:orders:write']);
    assertProblem(
      await call(app.url, 'GET', `${path}?resource=orders`, { bearer: onlyWrite }),
      403,
      'insufficient_scope',
    );
    assertProblem(await call(app.url, 'GET', path, { bearer: site.ingestKey }), 400, 'validation_failed');
    assertProblem(
      await call(app.url, 'GET', `${path}?resource=widgets`, { bearer: site.ingestKey }),
      400,
      'validation_failed',
    );
    assertProblem(
      await call(app.url, 'GET', `/api/v1/sites/${site.siteId}/ingest/receipts/nope?resource=orders`, {
        bearer: site.ingestKey,
      }),
      404,
      'not_found',
    );
    const ok = await call(app.url, 'GET', `${path}?resource=orders`, { bearer: site.ingestKey });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.status, 'completed');
    // A session holds every scope on its own sites.
    assert.equal(
      (await call(app.url, 'GET', `${path}?resource=orders`, { session: site.account.session })).status,
      200,
    );
  });
});

describe('asynchronous answers', () => {
  test('Prefer: respond-async answers 202 with Location at once; the receipt then completes', async () => {
    const r = await postBatch(
      app,
      site,
      'observations',
      batch('observations', 'async-1', [sampleRecord('observations', 'async')]),
      { prefer: 'respond-async, wait=5' },
    );
    assert.equal(r.status, 202, r.text);
    assert.equal(r.body.status, 'queued');
    assert.equal(r.body.applied, 0);
    assert.equal(r.body.completed_at, null);
    assert.equal(r.headers.get('preference-applied'), 'respond-async');
    const location = r.headers.get('location')!;
    assert.equal(location, `/api/v1/sites/${site.siteId}/ingest/receipts/async-1?resource=observations`);
    const receipt = await eventually(
      async () => {
        const r = await call(app.url, 'GET', location, { bearer: site.ingestKey });
        assert.equal(r.status, 200, r.text);
        return r.body.status === 'queued' ? undefined : r;
      },
      10_000,
      'the batch to leave queued',
    );
    assert.equal(receipt.body.status, 'completed');
    assert.equal(receipt.body.applied, 1);
  });
});
