import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { RESOURCES } from '../../src/auth/scopes.ts';
import { HttpError } from '../../src/errors/http-error.ts';
import { parseWith } from '../../src/http/validate.ts';
import { canonicalBatch, canonicalJson } from '../../src/ingest/canonical.ts';
import { BATCH_SCHEMAS, batchJsonSchema } from '../../src/ingest/schemas.ts';
import { batchSemanticErrors, referenceErrors } from '../../src/ingest/semantic.ts';
import { normalizeTimestamp } from '../../src/ingest/timestamp.ts';
import { batch, sampleRecord } from './fixtures.ts';

/** The 400 errors of a body, as {path: message}. */
function violations(resource: (typeof RESOURCES)[number], body: unknown): Record<string, string> {
  try {
    parseWith(BATCH_SCHEMAS[resource], body);
  } catch (err) {
    assert.ok(err instanceof HttpError);
    assert.equal(err.code, 'validation_failed');
    return Object.fromEntries(err.errors!.map((e) => [e.path, e.message]));
  }
  assert.fail('body was accepted');
}

describe('Timestamp', () => {
  test('needs a zone and a real calendar date; seconds optional, fractions kept', () => {
    assert.deepEqual(normalizeTimestamp('2024-02-29T12:00:00Z'), { utc: '2024-02-29T12:00:00Z' });
    assert.ok('error' in normalizeTimestamp('2025-02-29T12:00:00Z'));
    assert.ok('error' in normalizeTimestamp('2024-04-31T00:00:00Z'));
    assert.ok('error' in normalizeTimestamp('2024-01-01T00:00:00'), 'no zone');
    assert.ok('error' in normalizeTimestamp('2024-01-01'), 'no time');
    assert.ok('error' in normalizeTimestamp('2024-01-01T24:00:00Z'));
    assert.ok('error' in normalizeTimestamp('2024-01-01T00:00:00+24:00'));
    assert.deepEqual(normalizeTimestamp('2024-03-01T07:30+08:00'), { utc: '2024-02-29T23:30:00Z' });
    assert.deepEqual(normalizeTimestamp('2023-12-31T20:00:00.123456789-05:00'), {
      utc: '2024-01-01T01:00:00.123456789Z',
    });
    assert.deepEqual(normalizeTimestamp('2024-01-01T00:00:00.500Z'), { utc: '2024-01-01T00:00:00.5Z' });
    assert.ok('error' in normalizeTimestamp('0001-01-01T00:00:00+01:00'), 'year 0 in UTC');
  });

  test('a zone offset carries the date over month, leap-day and year ends, both ways', () => {
    const utc = (v: string) => (normalizeTimestamp(v) as { utc: string }).utc;
    assert.equal(utc('2024-02-29T23:30-01:00'), '2024-03-01T00:30:00Z');
    assert.equal(utc('2023-02-28T23:00:05-02:00'), '2023-03-01T01:00:05Z');
    assert.equal(utc('2024-03-01T00:10+00:20'), '2024-02-29T23:50:00Z');
    assert.equal(utc('2023-03-01T00:10+00:20'), '2023-02-28T23:50:00Z');
    assert.equal(utc('2024-01-01T00:10+00:20'), '2023-12-31T23:50:00Z');
    assert.equal(utc('2024-04-30T23:59:59.9-23:59'), '2024-05-01T23:58:59.9Z');
    assert.equal(utc('0999-12-31T23:00-01:00'), '1000-01-01T00:00:00Z');
    assert.equal(utc('0050-06-15T12:00Z'), '0050-06-15T12:00:00Z');
    assert.ok('error' in normalizeTimestamp('9999-12-31T23:00-01:00'), 'year 10000 in UTC');
  });
});

describe('batch schemas (spec 2.1–2.4)', () => {
  test('a sample of every resource is valid, with defaults applied', () => {
    for (const r of RESOURCES) {
      const out = parseWith(BATCH_SCHEMAS[r], batch(r, 'b-1', [sampleRecord(r, 1)]));
      assert.equal(out.records[0]!.revision, 1, r);
      assert.equal(out.records[0]!.occurred_at, '2026-11-20T00:00:00Z', r);
    }
    const s = parseWith(BATCH_SCHEMAS.summaries, batch('summaries', 'b', [sampleRecord('summaries', 1)]));
    assert.deepEqual(s.records[0]!.dimensions, {});
  });

  test('every violation is listed with its JSON Pointer, unknown fields at every depth included', () => {
    const body = {
      schema_version: 'events.v2',
      batch_id: '-bad',
      extra: true,
      records: [
        sampleRecord('events', 1, {
          revision: 0,
          occurred_at: '2025-02-29T00:00:00Z',
          properties: { channel: 'x', color: 'red', quantity: 1_000_001 },
          surprise: 1,
        }),
        sampleRecord('events', 2, { event_type: 'click', external_user_id: 'a'.repeat(129) }),
      ],
    };
    assert.deepEqual(Object.keys(violations('events', body)).sort(), [
      '/batch_id',
      '/extra',
      '/records/0/occurred_at',
      '/records/0/properties/color',
      '/records/0/properties/quantity',
      '/records/0/revision',
      '/records/0/surprise',
      '/records/1/event_type',
      '/records/1/external_user_id',
      '/schema_version',
    ]);
  });

  test('summaries dimensions are strict; observations need latency_ms but accept null', () => {
    assert.ok(
      '/records/0/dimensions/region' in
        violations(
          'summaries',
          batch('summaries', 'b', [sampleRecord('summaries', 1, { dimensions: { region: 'x' } })]),
        ),
    );
    const missing = sampleRecord('observations', 1);
    delete missing.latency_ms;
    assert.ok('/records/0/latency_ms' in violations('observations', batch('observations', 'b', [missing])));
    parseWith(
      BATCH_SCHEMAS.observations,
      batch('observations', 'b', [sampleRecord('observations', 1, { latency_ms: null })]),
    );
  });

  test('ranges: revision, amounts, records per batch, currency, identifier', () => {
    const v = violations(
      'orders',
      batch('orders', 'b', [
        sampleRecord('orders', 1, { revision: 2_147_483_648, amount_minor: 1_000_000_000_001, currency: 'usd' }),
        sampleRecord('orders', 2, { amount_minor: 1.5, order_id: 'with space' }),
      ]),
    );
    assert.deepEqual(Object.keys(v).sort(), [
      '/records/0/amount_minor',
      '/records/0/currency',
      '/records/0/revision',
      '/records/1/amount_minor',
      '/records/1/order_id',
    ]);
    assert.ok('/records' in violations('orders', batch('orders', 'b', [])));
    assert.ok(
      '/records' in
        violations(
          'orders',
          batch(
            'orders',
            'b',
            Array.from({ length: 501 }, (_, i) => sampleRecord('orders', i)),
          ),
        ),
    );
    parseWith(
      BATCH_SCHEMAS.orders,
      batch(
        'orders',
        'a:b.c-d_e',
        Array.from({ length: 500 }, (_, i) =>
          sampleRecord('orders', i, { revision: 2_147_483_647, amount_minor: 1_000_000_000_000 }),
        ),
      ),
    );
  });

  test('the JSON Schema for the docs is strict and carries the patterns', () => {
    const js = batchJsonSchema('summaries') as any;
    assert.equal(js.additionalProperties, false);
    assert.equal(js.properties.records.items.additionalProperties, false);
    assert.equal(js.properties.records.items.properties.dimensions.additionalProperties, false);
    assert.equal(js.properties.batch_id.pattern, '^[a-zA-Z0-9][a-zA-Z0-9_.:-]{0,127}$');
    assert.equal(js.properties.schema_version.const, 'summaries.v1');
  });
});

describe('canonical JSON and digests', () => {
  test('omitted defaults, key order and zone spelling do not change the digest', () => {
    const a = parseWith(
      BATCH_SCHEMAS.events,
      batch('events', 'b', [
        {
          event_id: 'e1',
          event_type: 'visit',
          source: 'manual',
          occurred_at: '2026-01-01T08:00:00+08:00',
          properties: { device: 'mobile', channel: 'x' },
        },
      ]),
    );
    const b = parseWith(
      BATCH_SCHEMAS.events,
      batch('events', 'b', [
        {
          properties: { channel: 'x', device: 'mobile' },
          revision: 1,
          occurred_at: '2026-01-01T00:00:00Z',
          source: 'manual',
          event_type: 'visit',
          event_id: 'e1',
        },
      ]),
    );
    const c = parseWith(
      BATCH_SCHEMAS.events,
      batch('events', 'b', [
        { event_id: 'e1', event_type: 'visit', source: 'manual', occurred_at: '2026-01-01T00:00:00Z', revision: 2 },
      ]),
    );
    const digest = (x: typeof a) => canonicalBatch(x.records).digest.toString('hex');
    assert.equal(digest(a), digest(b));
    assert.notEqual(digest(a), digest(c));
  });

  test('plain JSON.stringify of validated records is canonical JSON for every resource', () => {
    for (const r of RESOURCES) {
      const extra =
        r === 'events'
          ? {
              campaign_id: 'c',
              activation_definition: 'a',
              properties: {
                product_category: 'p',
                plan_id: 'x',
                feature: 'f',
                channel: 'c',
                device: 'tablet',
                country: 'DE',
                quantity: 1,
              },
            }
          : {};
      const out = parseWith(BATCH_SCHEMAS[r], batch(r, 'b', [sampleRecord(r, 1, extra)]));
      const { payload } = canonicalBatch(out.records);
      assert.equal(payload, canonicalJson(out.records), r);
    }
  });
});

describe('compiled batch schemas (z.compile)', () => {
  // Values that break one rule or another of some field: wrong types, empty, unstorable, too
  // long, out of range, not a real date, a zone missing.
  const odd: unknown[] = [
    null,
    true,
    -1,
    0.5,
    1e13,
    '',
    'x',
    'a\u0000b',
    '\ud800',
    'y'.repeat(200),
    '2026-02-30T00:00:00Z',
    '2026-11-20T00:00:00',
    [],
    {},
    { colour: 'red' },
  ];

  test('every batch schema compiles, so valid batches take the generated parser', () => {
    for (const r of RESOURCES) assert.doesNotThrow(() => z.compile(BATCH_SCHEMAS[r], { strict: true }), r);
  });

  test('the compiled parser answers exactly as the runtime one: output, or every issue', () => {
    for (const r of RESOURCES) {
      // A clone is built from the definition alone: the runtime parser, without the fast path.
      const runtime = BATCH_SCHEMAS[r].clone();
      const sample = sampleRecord(r, 1);
      const bodies: unknown[] = [batch(r, 'b', [sample, sampleRecord(r, 2, { revision: 3 })]), batch(r, '', [])];
      for (const field of [...Object.keys(sample), 'unknown_field'])
        for (const value of odd) bodies.push(batch(r, 'b', [sampleRecord(r, 1, { [field]: value })]));
      for (const body of bodies) {
        const fast = BATCH_SCHEMAS[r].safeParse(body);
        const slow = runtime.safeParse(body);
        assert.deepEqual(fast.success ? fast.data : fast.error.issues, slow.success ? slow.data : slow.error.issues);
      }
    }
  });
});

describe('semantic rules checked before storing (CONTRACT §3)', () => {
  const now = Date.parse('2026-11-21T00:00:00Z');
  const parse = (r: (typeof RESOURCES)[number], records: Record<string, unknown>[]) =>
    parseWith(BATCH_SCHEMAS[r], batch(r, 'b', records)).records;

  test('ranges that end before they start, currencies of summaries, duplicates, the far future', () => {
    assert.deepEqual(
      batchSemanticErrors(
        'subscriptions',
        parse('subscriptions', [sampleRecord('subscriptions', 1, { period_end: '2026-10-01T00:00:00Z' })]),
        now,
      ).map((e) => e.path),
      ['/records/0/period_end'],
    );
    assert.deepEqual(
      batchSemanticErrors(
        'campaigns',
        parse('campaigns', [
          sampleRecord('campaigns', 1, { ends_at: '2026-10-31T23:59:59+00:00' }),
          sampleRecord('campaigns', 2),
        ]),
        now,
      ).map((e) => e.path),
      ['/records/0/ends_at'],
    );
    assert.deepEqual(
      batchSemanticErrors(
        'summaries',
        parse('summaries', [
          sampleRecord('summaries', 1, { unit: 'minor_currency' }),
          sampleRecord('summaries', 2, { unit: 'count', currency: 'USD' }),
          sampleRecord('summaries', 3, { unit: 'minor_currency', currency: 'USD' }),
          sampleRecord('summaries', 1),
        ]),
        now,
      ).map((e) => e.path),
      ['/records/0/currency', '/records/1/currency', '/records/3/summary_id'],
    );
    const future = batchSemanticErrors(
      'events',
      parse('events', [
        sampleRecord('events', 1, { occurred_at: '2026-11-22T00:00:01Z' }),
        sampleRecord('events', 2, { occurred_at: '2026-11-22T00:00:00Z' }),
      ]),
      now,
    );
    assert.deepEqual(
      future.map((e) => e.path),
      ['/records/0/occurred_at'],
    );
    // Equal instants written differently are not "before".
    assert.deepEqual(
      batchSemanticErrors(
        'costs',
        parse('costs', [
          sampleRecord('costs', 1, { period_start: '2026-11-01T08:00:00+08:00', period_end: '2026-11-01T00:00:00Z' }),
        ]),
        now,
      ),
      [],
    );
  });

  test('payments and refunds against their stored order or payment', () => {
    const refunds = parse('refunds', [
      sampleRecord('refunds', 1, { amount_minor: 2000 }),
      sampleRecord('refunds', 2, { currency: 'EUR' }),
      sampleRecord('refunds', 3, { payment_id: 'pay_unknown' }),
      sampleRecord('refunds', 4, { amount_minor: 1999 }),
    ]).map((record, index) => ({ index, record }));
    const stored = new Map(['pay_1', 'pay_2', 'pay_4'].map((id) => [id, { amount_minor: 1999, currency: 'USD' }]));
    assert.deepEqual(
      referenceErrors('refunds', refunds, stored).map((e) => e.path),
      ['/records/0/amount_minor', '/records/1/currency'],
    );
    const payments = parse('payments', [sampleRecord('payments', 1, { currency: 'JPY' })]).map((record, index) => ({
      index,
      record,
    }));
    assert.deepEqual(
      referenceErrors('payments', payments, new Map([['ord_1', { amount_minor: 1, currency: 'USD' }]])).map(
        (e) => e.path,
      ),
      ['/records/0/currency'],
    );
  });
});
