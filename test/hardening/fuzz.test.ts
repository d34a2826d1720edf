import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { batch, ingestSite, postBatch, sampleRecord, type IngestSite } from '../ingest/fixtures.ts';

/**
 * Property-based abuse of the ingest and read endpoints. Every mutated request must get a
 * clear client error (400, 413, 415 or 422 with problem+json) within its deadline, never a
 * 500 or a hang, and nothing stored before may change. What is valid is stated here from the
 * contract (spec 2.2, CONTRACT §4), not asked of the production schemas, so a schema that lets
 * a bad value through fails the test.
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
  app = await startTestApp({
    workers: ['ingest'],
    env: { RATE_LIMIT_CREDENTIAL_PER_MIN: '0', INGEST_QUOTA_RECORDS_PER_MIN: '0' },
  });
  site = await ingestSite(app);
  const baseline = await postBatch(
    app,
    site,
    'events',
    batch(
      'events',
      'baseline',
      [0, 1, 2].map((i) => sampleRecord('events', `base_${i}`)),
    ),
  );
  assert.equal(baseline.status, 200, baseline.text);
  snapshot = await storedState();
});
after(() => app.close());

type Batch = { records: Record<string, unknown>[]; [k: string]: unknown };
const VALID = batch(
  'events',
  'fuzz',
  [0, 1, 2].map((i) => sampleRecord('events', `fuzz_${i}`, { occurred_at: '2026-11-01T10:00:00Z' })),
) as Batch;

interface Mutant {
  body: string | Buffer;
  contentType: string;
}

// Values no field of an event may take, by the contract, whatever else it allows.
const notJsonScalar = fc.oneof(
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 3 }),
  fc.constant(null),
);
const notString = fc.oneof(notJsonScalar, fc.double(), fc.boolean(), fc.constantFrom(1e308, -1, 2 ** 53 + 1));
const oddString = fc.string({ unit: 'binary', maxLength: 300 });
// Identifiers: 1 to 128 of [a-zA-Z0-9_.:-], starting with a letter or digit.
const badIdentifier = fc.oneof(
  notString,
  fc.constantFrom('', ' ', '_x', '-x', '.x', 'a b', 'é', 'x'.repeat(129), 'a\u0000', 'a/b'),
);
const oneOf = (allowed: readonly string[]) =>
  fc.oneof(
    notString,
    oddString.filter((v) => !allowed.includes(v)),
    fc.constantFrom(...allowed.map((v) => v.toUpperCase())),
  );
const INVALID: Record<string, fc.Arbitrary<unknown>> = {
  event_id: badIdentifier,
  external_user_id: badIdentifier,
  session_id: badIdentifier,
  campaign_id: badIdentifier,
  activation_definition: badIdentifier,
  event_type: oneOf([
    'visit',
    'registration_completed',
    'activation_completed',
    'usage',
    'workflow_completed',
    'order_paid',
    'subscription_cancelled',
  ]),
  source: oneOf(['site_backend', 'server_sdk', 'client_sdk', 'import', 'manual']),
  // An integer from 1 to 2^31 - 1.
  revision: fc.oneof(
    notJsonScalar,
    fc.boolean(),
    fc.string({ maxLength: 5 }),
    fc.double().filter((v) => !Number.isInteger(v)),
    fc.constantFrom(0, -1, 2147483648, 1e308),
  ),
  // An ISO 8601 date-time with a zone, on a real calendar day.
  occurred_at: fc.oneof(
    notJsonScalar,
    fc.integer(),
    fc.boolean(),
    oddString.filter((v) => !/^\d{4}-\d\d-\d\dT/.test(v)),
    fc.constantFrom(
      '',
      ' ',
      '\u0000',
      '2025-02-29T00:00:00Z',
      '2026-11-01T10:00:00',
      '2026-11-01',
      '2026-13-01T00:00:00Z',
      '2026-11-31T00:00:00Z',
    ),
  ),
  // An object of known keys.
  properties: fc.oneof(
    fc.array(fc.jsonValue(), { maxLength: 3 }),
    fc.constant(null),
    fc.string(),
    fc.double(),
    fc.boolean(),
  ),
};

const clone = () => JSON.parse(JSON.stringify(VALID)) as Batch;
const json = (v: unknown): Mutant => ({ body: JSON.stringify(v), contentType: 'application/json' });
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

// Every mutant is invalid by construction.
const mutants: fc.Arbitrary<Mutant> = fc.oneof(
  // A field of a record set to a value the contract does not allow for it.
  fc.tuple(fc.nat(2), fc.constantFrom(...Object.keys(INVALID))).chain(([i, field]) =>
    INVALID[field]!.map((value) => {
      const b = clone();
      b.records[i]![field] = value;
      return json(b);
    }),
  ),
  // A required field removed, or an unknown one added, at any level (records and properties are closed).
  fc.tuple(fc.nat(2), fc.constantFrom('event_id', 'event_type', 'source', 'occurred_at')).map(([i, field]) => {
    const b = clone();
    delete b.records[i]![field];
    return json(b);
  }),
  fc
    .tuple(fc.nat(2), fc.string({ minLength: 1, maxLength: 20 }), fc.jsonValue(), fc.boolean())
    .map(([i, key, value, inProperties]) => {
      const b = clone();
      const target = inProperties ? (b.records[i]!.properties as Record<string, unknown>) : b.records[i]!;
      target[`x_${key}`] = value;
      return json(b);
    }),
  // The envelope itself broken.
  fc
    .oneof(
      fc.jsonValue(),
      fc.constant({}),
      fc.constant({ ...VALID, records: [] }),
      fc.constant({ ...VALID, schema_version: 'orders.v1' }),
      fc.constant({ ...VALID, records: Array(501).fill(VALID.records[0]) }),
    )
    .map(json),
  // Deep nesting inside properties.
  fc.integer({ min: 100, max: 20000 }).map((depth) => ({
    body: JSON.stringify(VALID).replace('"properties":{', `"properties":{"deep":${nested(depth)},`),
    contentType: 'application/json',
  })),
  // A member given twice (the second one valid or not, it is refused either way).
  fc.constantFrom('event_type', 'event_id', 'source').map((key) => ({
    body: JSON.stringify(VALID).replace(`"${key}":`, `"${key}":"visit","${key}":`),
    contentType: 'application/json',
  })),
  // Truncated JSON and invalid UTF-8.
  fc
    .integer({ min: 0, max: JSON.stringify(VALID).length - 1 })
    .map((cut) => ({ body: JSON.stringify(VALID).slice(0, cut), contentType: 'application/json' })),
  fc
    .tuple(
      fc.nat(JSON.stringify(VALID).length - 1),
      fc.constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]),
    )
    .map(([at, bytes]) => {
      const text = Buffer.from(JSON.stringify(VALID));
      return {
        body: Buffer.concat([text.subarray(0, at), Buffer.from(bytes), text.subarray(at)]),
        contentType: 'application/json',
      };
    }),
  // A valid body under a content type that is not JSON.
  fc
    .constantFrom(
      'text/plain',
      'application/xml',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      'json',
      'application/jsonx',
      '*/*',
    )
    .map((contentType) => ({ body: JSON.stringify(VALID), contentType })),
);

// Header names a client might send that must never change the outcome of a bad body.
const extraHeaders = fc.dictionary(
  fc.constantFrom(
    'prefer',
    'x-request-id',
    'accept',
    'accept-encoding',
    'x-forwarded-for',
    'idempotency-key',
    'user-agent',
  ),
  fc.string({ unit: fc.constantFrom(...'abcXYZ019 -_=;,/.'.split('')), maxLength: 200 }),
  { maxKeys: 3 },
);

test('mutated ingest bodies and headers always get 400/413/415/422 problem+json, never 500 or a hang', async () => {
  await fc.assert(
    fc.asyncProperty(mutants, extraHeaders, async (m, headers) => {
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
  const records = Array.from({ length: 500 }, (_, i) =>
    sampleRecord('events', `big_${i}`, { properties: { feature: 'x'.repeat(160), product_category: 'y'.repeat(160) } }),
  );
  const big = JSON.stringify(batch('events', 'too-big', records)).replace(
    '"records"',
    `"pad":"${'z'.repeat(5 * 1024 * 1024)}","records"`,
  );
  const r = await fetch(`${app.url}/api/v1/sites/${site.siteId}/ingest/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${site.ingestKey}`, 'content-type': 'application/json' },
    body: big,
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(r.status, 413);
  assert.equal(await storedState(), snapshot);
});

/** CONTRACT §4 list query: limit 1-200, offset 0-10000 (decimal digits), from/to date-times with a zone, to not before from; nothing else, nothing twice. */
const VALID_TIMESTAMPS = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00+08:00', '2024-02-29T12:00:00Z'];
function validListQuery(pairs: readonly (readonly [string, string])[]): boolean {
  const given = new Map<string, string>();
  for (const [k, v] of pairs) {
    if (given.has(k)) return false;
    given.set(k, v);
  }
  const count = (v: string, min: number, max: number) => /^\d{1,9}$/.test(v) && Number(v) >= min && Number(v) <= max;
  for (const [k, v] of given) {
    if (
      k === 'limit'
        ? !count(v, 1, 200)
        : k === 'offset'
          ? !count(v, 0, 10_000)
          : k === 'from' || k === 'to'
            ? !VALID_TIMESTAMPS.includes(v)
            : true
    )
      return false;
  }
  const from = given.get('from');
  const to = given.get('to');
  return from === undefined || to === undefined || Date.parse(to) >= Date.parse(from);
}

test('mutated query strings on reads get 400 problem+json, or 200 exactly when valid', async () => {
  const keys = fc.constantFrom('limit', 'offset', 'from', 'to', 'order', 'LIMIT', 'limit[]', '');
  const values = fc.oneof(
    fc.integer({ min: -10, max: 20000 }).map(String),
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      ...VALID_TIMESTAMPS,
      '2026-02-29T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-01-01',
      '1e3',
      '00050',
      ' 5',
      'NaN',
      '2026-01-01T00:00:00',
    ),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(keys, values), { maxLength: 4 }), async (pairs) => {
      const qs = new URLSearchParams(pairs);
      const res = await fetch(`${app.url}/api/v1/sites/${site.siteId}/events?${qs}`, {
        headers: { authorization: `Bearer ${site.readKey}` },
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      const valid = validListQuery([...qs]);
      assert.equal(res.status, valid ? 200 : 400, `${qs}: ${text.slice(0, 200)}`);
      if (!valid) assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    }),
    { numRuns: 150 },
  );
});
