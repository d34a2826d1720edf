import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { BATCH_SCHEMAS, type IngestRecord } from '../../src/ingest/schemas.ts';
import { batchSemanticErrors } from '../../src/ingest/semantic.ts';
import { RecordListQuerySchema } from '../../src/records/schemas.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { batch, ingestSite, postBatch, sampleRecord, type IngestSite } from '../ingest/fixtures.ts';

/**
 * Property-based abuse of the ingest and read endpoints. Every mutated request must get a
 * clear client error (400, 413, 415 or 422 with problem+json) within its deadline, never a
 * 500 or a hang, and nothing stored before may change.
 */
let app: TestApp;
let site: IngestSite;
let snapshot: string;

async function storedState(): Promise<string> {
  const r = await app.db.one(`
    SELECT (SELECT count(*) FROM ingest_batches) AS batches,
           (SELECT md5(coalesce(string_agg(record::text || revision, ',' ORDER BY event_id), '')) FROM ingest_events) AS events`);
  return JSON.stringify(r);
}

before(async () => {
  app = await startTestApp({ workers: ['ingest'], env: { RATE_LIMIT_CREDENTIAL_PER_MIN: '0', INGEST_QUOTA_RECORDS_PER_MIN: '0' } });
  site = await ingestSite(app);
  const baseline = await postBatch(app, site, 'events', batch('events', 'baseline', [0, 1, 2].map((i) => sampleRecord('events', `base_${i}`))));
  assert.equal(baseline.status, 200, baseline.text);
  snapshot = await storedState();
});
after(() => app.close());

type Batch = { records: Record<string, unknown>[]; [k: string]: unknown };
const VALID = batch('events', 'fuzz', [0, 1, 2].map((i) => sampleRecord('events', `fuzz_${i}`, { occurred_at: '2026-11-01T10:00:00Z' }))) as Batch;
const FIELDS = ['event_id', 'event_type', 'external_user_id', 'session_id', 'campaign_id', 'revision', 'source', 'occurred_at', 'properties', 'activation_definition'];

interface Mutant {
  body: string | Buffer;
  contentType: string;
  /** True when the mutant is still a valid batch (it would be stored): such cases are skipped. */
  valid: boolean;
}

function locallyValid(value: unknown): boolean {
  const r = BATCH_SCHEMAS.events.safeParse(value);
  return r.success && batchSemanticErrors('events', r.data.records as IngestRecord[], Date.now()).length === 0;
}

const clone = () => JSON.parse(JSON.stringify(VALID)) as Batch;
const json = (v: unknown): Mutant => ({ body: JSON.stringify(v), contentType: 'application/json', valid: locallyValid(v) });
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

const mutants: fc.Arbitrary<Mutant> = fc.oneof(
  // A field of a record set to anything at all: types, huge numbers, unicode, nulls.
  fc.tuple(fc.nat(2), fc.constantFrom(...FIELDS), fc.oneof(fc.jsonValue(), fc.double(), fc.bigInt().map(String), fc.string({ unit: 'binary', maxLength: 300 }), fc.constantFrom(1e308, -1, 2 ** 53 + 1, 2147483648, '', ' ', '\u0000', '2025-02-29T00:00:00Z'))).map(([i, field, value]) => {
    const b = clone();
    b.records[i]![field] = value;
    return json(b);
  }),
  // A required field removed, or an unknown one added, at any level.
  fc.tuple(fc.nat(2), fc.constantFrom('event_id', 'event_type', 'source', 'occurred_at')).map(([i, field]) => {
    const b = clone();
    delete b.records[i]![field];
    return json(b);
  }),
  fc.tuple(fc.nat(2), fc.string({ minLength: 1, maxLength: 20 }), fc.jsonValue(), fc.boolean()).map(([i, key, value, inProperties]) => {
    const b = clone();
    const target = inProperties ? (b.records[i]!.properties as Record<string, unknown>) : b.records[i]!;
    if (!(key in target)) target[key] = value;
    else target[`${key}_extra`] = value;
    return json(b);
  }),
  // The envelope itself broken.
  fc.oneof(fc.jsonValue(), fc.constant({}), fc.constant({ ...VALID, records: [] }), fc.constant({ ...VALID, schema_version: 'orders.v1' }), fc.constant({ ...VALID, records: Array(501).fill(VALID.records[0]) })).map(json),
  // Deep nesting inside properties.
  fc.integer({ min: 100, max: 20000 }).map((depth) => ({ body: JSON.stringify(VALID).replace('"properties":{', `"properties":{"deep":${nested(depth)},`), contentType: 'application/json', valid: false })),
  // A member given twice (the second one valid or not, it is refused either way).
  fc.constantFrom('event_type', 'event_id', 'source').map((key) => ({ body: JSON.stringify(VALID).replace(`"${key}":`, `"${key}":"visit","${key}":`), contentType: 'application/json', valid: false })),
  // Truncated JSON and invalid UTF-8.
  fc.integer({ min: 0, max: JSON.stringify(VALID).length - 1 }).map((cut) => ({ body: JSON.stringify(VALID).slice(0, cut), contentType: 'application/json', valid: false })),
  fc.tuple(fc.nat(JSON.stringify(VALID).length - 1), fc.constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80])).map(([at, bytes]) => {
    const text = Buffer.from(JSON.stringify(VALID));
    return { body: Buffer.concat([text.subarray(0, at), Buffer.from(bytes), text.subarray(at)]), contentType: 'application/json', valid: false };
  }),
  // A valid body under a content type that is not JSON.
  fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'json', 'application/jsonx', '*/*').map((contentType) => ({ body: JSON.stringify(VALID), contentType, valid: false })),
);

// Header names a client might send that must never change the outcome of a bad body.
const extraHeaders = fc.dictionary(
  fc.constantFrom('prefer', 'x-request-id', 'accept', 'accept-encoding', 'x-forwarded-for', 'idempotency-key', 'user-agent'),
  fc.string({ unit: fc.constantFrom(...'abcXYZ019 -_=;,/.'.split('')), maxLength: 200 }),
  { maxKeys: 3 },
);

test('mutated ingest bodies and headers always get 400/413/415/422 problem+json, never 500 or a hang', async () => {
  await fc.assert(
    fc.asyncProperty(mutants, extraHeaders, async (m, headers) => {
      fc.pre(!m.valid);
      const res = await fetch(`${app.url}/api/v1/sites/${site.siteId}/ingest/events`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${site.ingestKey}`, 'content-type': m.contentType },
        body: m.body as BodyInit,
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      assert.ok([400, 413, 415, 422].includes(res.status), `status ${res.status}: ${text.slice(0, 300)}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      const problem = JSON.parse(text);
      assert.equal(problem.status, res.status);
      assert.equal(typeof problem.code, 'string');
    }),
    { numRuns: 250 },
  );
  assert.equal(await storedState(), snapshot, 'no stored batch or record changed');
});

test('a body over 5 MiB is 413 and changes nothing', async () => {
  const records = Array.from({ length: 500 }, (_, i) => sampleRecord('events', `big_${i}`, { properties: { feature: 'x'.repeat(160), product_category: 'y'.repeat(160) } }));
  const big = JSON.stringify(batch('events', 'too-big', records)).replace('"records"', `"pad":"${'z'.repeat(5 * 1024 * 1024)}","records"`);
  const r = await fetch(`${app.url}/api/v1/sites/${site.siteId}/ingest/events`, {
    method: 'POST', headers: { authorization: `Bearer ${site.ingestKey}`, 'content-type': 'application/json' }, body: big, signal: AbortSignal.timeout(10_000),
  });
  assert.equal(r.status, 413);
  assert.equal(await storedState(), snapshot);
});

test('mutated query strings on reads get 400 problem+json, or 200 exactly when valid', async () => {
  const keys = fc.constantFrom('limit', 'offset', 'from', 'to', 'order', 'LIMIT', 'limit[]', '');
  const values = fc.oneof(fc.integer({ min: -10, max: 20000 }).map(String), fc.string({ maxLength: 40 }), fc.constantFrom('2026-02-29T00:00:00Z', '2025-02-29T00:00:00Z', '2026-01-01', '1e3', '00050', ' 5', 'NaN', '2026-01-01T00:00:00+08:00'));
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(keys, values), { maxLength: 4 }), async (pairs) => {
      const qs = new URLSearchParams(pairs);
      const res = await fetch(`${app.url}/api/v1/sites/${site.siteId}/events?${qs}`, {
        headers: { authorization: `Bearer ${site.readKey}` },
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      const given: Record<string, string> = {};
      let repeated = false;
      for (const [k, v] of qs) {
        if (k in given) repeated = true;
        given[k] = v;
      }
      const valid = !repeated && RecordListQuerySchema.safeParse(given).success;
      assert.equal(res.status, valid ? 200 : 400, `${qs}: ${text.slice(0, 200)}`);
      if (!valid) assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    }),
    { numRuns: 150 },
  );
});
