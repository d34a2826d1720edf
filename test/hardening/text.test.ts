import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { Resource } from '../../src/auth/scopes.ts';
import { insertChannel } from '../../src/relay/repo.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { SITE_BODY } from '../helpers/fixtures.ts';
import { call, type Answer } from '../helpers/http.ts';
import { batch, ingestSite, postBatch, sampleRecord, type IngestSite } from '../ingest/fixtures.ts';

/**
 * Every free-text field of every business-API body, fed strings from every troublesome class:
 * each value is either refused with 400 `validation_failed` pointing at it (and nothing is
 * stored), or stored and read back through the API exactly as sent. Which of the two is decided
 * here independently of Radar's code: a value is refused when PostgreSQL could not hold it or
 * it would not survive UTF-8 (U+0000, unpaired surrogates), or when its length in code points
 * (the spec's characters) is out of the field's range.
 */
let app: TestApp;
let site: IngestSite;
const MODEL = 'text-model';

before(async () => {
  // A long synchronous wait: on a loaded machine an accepted batch must still answer 200, not 202.
  app = await startTestApp({
    workers: ['ingest'],
    env: { RATE_LIMIT_CREDENTIAL_PER_MIN: '0', INGEST_QUOTA_RECORDS_PER_MIN: '0', INGEST_SYNC_WAIT_MS: '60000' },
  });
  site = await ingestSite(app);
  await insertChannel(app.db, {
    name: 'text',
    baseUrl: 'http://127.0.0.1:9/v1',
    apiKey: null,
    models: [MODEL],
    protocols: ['responses'],
    priority: 0,
    weight: 1,
  });
});
after(() => app.close());

interface Field {
  name: string;
  /** Range in code points of the whole stored value (prefix included). */
  min: number;
  max: number;
  /** Leading or trailing white space is refused (names matched as given). */
  unpadded?: boolean;
  /** Stored value = prefix + the generated string (URLs). */
  prefix?: string;
  /** The JSON Pointer a refusal must name. */
  pointer: string;
  /** Sends `value`; returns the answer. */
  send(value: string): Promise<Answer>;
  /** The value as the API now returns it, after `send` answered `sent`. */
  read(sent: Answer): Promise<string>;
}

const session = () => ({ session: site.account.session });
const sitePath = () => `/api/v1/sites/${site.siteId}`;

let seq = 0;
/** An ingest field: one record per request, read back from its collection by a window around its own occurred_at. */
function ingestField(
  resource: Resource,
  collection: string,
  name: string,
  pointer: string,
  put: (v: string) => Record<string, unknown>,
  get: (record: any) => string,
): Field {
  let occurredAt = '';
  return {
    name: `${resource} ${name}`,
    min: 0,
    max: 160,
    pointer: `/records/0${pointer}`,
    async send(v) {
      const n = ++seq;
      occurredAt = new Date(Date.UTC(2026, 9, 1) + n * 1000).toISOString();
      return postBatch(
        app,
        site,
        resource,
        batch(resource, `text-${n}`, [sampleRecord(resource, `t${n}`, { occurred_at: occurredAt, ...put(v) })]),
      );
    },
    async read() {
      const to = new Date(Date.parse(occurredAt) + 1000).toISOString();
      const r = await call(app.url, 'GET', `${sitePath()}/${collection}?from=${occurredAt}&to=${to}`, {
        bearer: site.readKey,
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data.length, 1);
      return get(r.body.data[0]);
    },
  };
}

function siteField(name: 'name' | 'description' | 'websiteUrl', min: number, max: number, prefix?: string): Field[] {
  const readSite = async (id: string) => {
    const r = await call(app.url, 'GET', `/api/v1/sites/${id}`, session());
    assert.equal(r.status, 200, r.text);
    return r.body[name] as string;
  };
  return [
    {
      name: `POST /me/sites ${name}`,
      min,
      max,
      prefix,
      pointer: `/${name}`,
      send: (v) =>
        call(app.url, 'POST', '/api/v1/me/sites', { ...session(), body: { ...SITE_BODY, [name]: (prefix ?? '') + v } }),
      read: (sent) => readSite(sent.body.id),
    },
    {
      name: `PATCH /sites/{id} ${name}`,
      min,
      max,
      prefix,
      pointer: `/${name}`,
      send: (v) => call(app.url, 'PATCH', sitePath(), { ...session(), body: { [name]: (prefix ?? '') + v } }),
      read: () => readSite(site.siteId),
    },
  ];
}

const CONFIG = {
  brand: { name: 'Brandname', aliases: ['Brand alias'] },
  competitors: [{ name: 'Rival', aliases: ['Rival alias'] }],
  models: [MODEL],
};
function geoConfigField(
  name: string,
  pointer: string,
  put: (v: string) => unknown,
  get: (config: any) => string,
): Field {
  return {
    name: `PUT geo/config ${name}`,
    min: 1,
    max: 160,
    unpadded: true,
    pointer,
    send: (v) => call(app.url, 'PUT', `${sitePath()}/geo/config`, { ...session(), body: put(v) }),
    async read() {
      const r = await call(app.url, 'GET', `${sitePath()}/geo/config`, session());
      assert.equal(r.status, 200, r.text);
      return get(r.body.data);
    },
  };
}

const FIELDS: Field[] = [
  ...siteField('name', 2, 160),
  ...siteField('description', 2, 2000),
  ...siteField('websiteUrl', 1, 2048, 'https://text.example/path?q='),
  {
    name: 'POST credentials name',
    min: 1,
    max: 160,
    pointer: '/name',
    send: (v) =>
      call(app.url, 'POST', `${sitePath()}/credentials`, {
        ...session(),
        body: { name: v, kind: 'read', scopes: ['events:read'] },
      }),
    async read(sent) {
      const r = await call(app.url, 'GET', `${sitePath()}/credentials`, session());
      return r.body.data.find((c: { id: string }) => c.id === sent.body.id).name;
    },
  },
  ingestField(
    'events',
    'events',
    'properties.product_category',
    '/properties/product_category',
    (v) => ({ properties: { product_category: v } }),
    (r) => r.properties.product_category,
  ),
  ingestField(
    'events',
    'events',
    'properties.feature',
    '/properties/feature',
    (v) => ({ properties: { feature: v } }),
    (r) => r.properties.feature,
  ),
  ingestField(
    'events',
    'events',
    'properties.channel',
    '/properties/channel',
    (v) => ({ properties: { channel: v } }),
    (r) => r.properties.channel,
  ),
  ingestField(
    'campaigns',
    'campaigns',
    'name',
    '/name',
    (v) => ({ name: v }),
    (r) => r.name,
  ),
  ingestField(
    'observations',
    'observations',
    'region',
    '/region',
    (v) => ({ region: v }),
    (r) => r.region,
  ),
  ingestField(
    'summaries',
    'summaries',
    'dimensions.channel',
    '/dimensions/channel',
    (v) => ({ dimensions: { channel: v } }),
    (r) => r.dimensions.channel,
  ),
  geoConfigField(
    'brand.name',
    '/brand/name',
    (v) => ({ ...CONFIG, brand: { ...CONFIG.brand, name: v } }),
    (c) => c.brand.name,
  ),
  geoConfigField(
    'brand.aliases',
    '/brand/aliases/0',
    (v) => ({ ...CONFIG, brand: { ...CONFIG.brand, aliases: [v] } }),
    (c) => c.brand.aliases[0],
  ),
  geoConfigField(
    'competitors.name',
    '/competitors/0/name',
    (v) => ({ ...CONFIG, competitors: [{ name: v }] }),
    (c) => c.competitors[0].name,
  ),
  geoConfigField(
    'competitors.aliases',
    '/competitors/0/aliases/0',
    (v) => ({ ...CONFIG, competitors: [{ name: 'Rival', aliases: [v] }] }),
    (c) => c.competitors[0].aliases[0],
  ),
  {
    name: 'POST geo/prompts text',
    min: 3,
    max: 500,
    unpadded: true,
    pointer: '/text',
    async send(v) {
      // A site tracks at most 200 prompts; start over well before that.
      await app.db.none(
        'DELETE FROM geo_prompts WHERE site_id = $1 AND (SELECT count(*) FROM geo_prompts WHERE site_id = $1) > 150',
        [site.siteId],
      );
      return call(app.url, 'POST', `${sitePath()}/geo/prompts`, { ...session(), body: { text: v } });
    },
    async read(sent) {
      const r = await call(app.url, 'GET', `${sitePath()}/geo/prompts?limit=200`, session());
      return r.body.data.find((p: { id: string }) => p.id === sent.body.id).text;
    },
  },
];

/** Pieces of every troublesome class, and plain ones to mix them with. */
const PIECES = [
  'a',
  'Z',
  '7',
  ' ',
  '\t',
  '\n',
  '\u00a0',
  '\u3000',
  'é',
  '漢',
  '\u0000', // NUL
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff', // unpaired surrogates
  '\ufffe',
  '\uffff',
  '\ufdd0', // noncharacters
  '\u202e',
  '\u202c',
  '\u2066',
  '\u2069',
  '\u200f',
  '\u200e',
  '\u061c', // bidi controls
  '\ufeff',
  '\u200b',
  '\u200d', // BOM and zero-width
  '😀',
  '👩\u200d💻',
  '🇫🇷',
  '\u{10ffff}',
  '\u{1d11e}', // 4-byte (and ZWJ/flag sequences)
  'e\u0301',
  '\u0301',
  '\u0308\u0308\u0308',
  'ก\u0e49', // combining marks
  '"',
  '\\',
  '/',
  '<',
  '%00',
  '\\u0000', // look-alikes of escapes
];
const FILLS = ['a', '😀', '漢', '\u0301', '\uffff', '\u{10ffff}'];

/** What the API must do with `stored` in `f`, decided without Radar's code. */
function expectAccepted(f: Field, stored: string): boolean {
  const storable = !stored.includes('\u0000') && Buffer.from(stored, 'utf8').toString('utf8') === stored;
  const length = [...stored].length;
  return storable && length >= f.min && length <= f.max && !(f.unpadded && /^\s|\s$/.test(stored));
}

/** A string for `f`: pieces mixed, or a fill of exactly the limits (and one past them), in code points. */
function valuesFor(f: Field): fc.Arbitrary<string> {
  const room = (n: number) => Math.max(0, n - [...(f.prefix ?? '')].length);
  const lengths = [f.min - 1, f.min, f.max, f.max + 1].filter((n) => n >= 0).map(room);
  return fc.oneof(
    fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((p) => `x${p.join('')}y`),
    fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 6 }).map((p) => p.join('')),
    fc.tuple(fc.constantFrom(...lengths), fc.constantFrom(...FILLS)).map(([n, fill]) => fill.repeat(n)),
    // At the limit with one troublesome piece inside.
    fc
      .tuple(fc.constantFrom(...FILLS), fc.constantFrom('\u0000', '\ud800', '\udfff', '\u202e', '\ufffe'))
      .map(([fill, bad]) => `x${fill.repeat(Math.max(0, room(f.max) - 2))}${bad}`),
  );
}

/** The examples every field is tried with, whatever the random runs pick. */
function examplesFor(f: Field): string[] {
  const room = Math.max(0, f.max - [...(f.prefix ?? '')].length);
  return [
    'ab\u0000cd',
    '\u0000',
    'ab\ud800cd',
    'ab\udc00cd',
    'abc\ud83d',
    '\ufffe\uffffab',
    'ab\u202ecd\u202c',
    '\u2066abc\u2069',
    'ab😀cd',
    'ab👩\u200d💻',
    'ae\u0301\u0301b',
    '😀'.repeat(room),
    '😀'.repeat(room + 1),
    'a'.repeat(room),
    'a'.repeat(room + 1),
    ' padded ',
    'a\\u0000b',
  ];
}

const fieldNamed = (name: string): Field => FIELDS.find((f) => f.name === name)!;

async function check(f: Field, value: string): Promise<void> {
  const stored = (f.prefix ?? '') + value;
  const sent = await f.send(value);
  const what = `${f.name} = ${JSON.stringify(stored).slice(0, 120)}: ${sent.status} ${sent.text.slice(0, 300)}`;
  if (expectAccepted(f, stored)) {
    assert.equal(sent.status, 200, what);
    const back = await f.read(sent);
    assert.ok(back === stored, `${what}\nread back ${JSON.stringify(back).slice(0, 120)}`);
    assert.ok(Buffer.from(back, 'utf8').equals(Buffer.from(stored, 'utf8')), what);
  } else {
    assert.equal(sent.status, 400, what);
    assert.match(sent.headers.get('content-type') ?? '', /^application\/problem\+json/, what);
    assert.equal(sent.body.code, 'validation_failed', what);
    assert.deepEqual(
      sent.body.errors.map((e: { path: string }) => e.path),
      [f.pointer],
      what,
    );
  }
}

async function storedCounts(): Promise<string> {
  return JSON.stringify(
    await app.db.one(`
    SELECT (SELECT count(*) FROM sites) AS sites, (SELECT count(*) FROM credentials) AS credentials,
           (SELECT count(*) FROM ingest_batches) AS batches,
           (SELECT md5(string_agg(name || description || website_url, ',' ORDER BY id)) FROM sites) AS site_text,
           (SELECT md5(coalesce(string_agg(brand_name || competitors::text || brand_aliases::text, ','), '')) FROM geo_configs) AS config`),
  );
}

test('every free-text field: each troublesome example is refused with 400 naming it, or read back byte for byte', async () => {
  for (const f of FIELDS) {
    for (const value of examplesFor(f)) {
      const before = await storedCounts();
      const stored = (f.prefix ?? '') + value;
      await check(f, value);
      if (!expectAccepted(f, stored))
        assert.equal(await storedCounts(), before, `${f.name}: a refused value stored nothing`);
    }
  }
});

test('every free-text field, random strings from every troublesome class: refused with 400 or read back byte for byte', async () => {
  await fc.assert(
    // Fields are drawn by name so a counterexample prints readably.
    fc.asyncProperty(
      fc
        .constantFrom(...FIELDS.map((f) => f.name))
        .chain((name) => valuesFor(fieldNamed(name)).map((v) => [name, v] as const)),
      async ([name, value]) => check(fieldNamed(name), value),
    ),
    { numRuns: 300, endOnFailure: true },
  );
});

test('GEO audit URLs (U+0000, lone surrogates) and GEO query filters (U+0000) are 400 naming them, never 500', async () => {
  for (const bad of ['\u0000', '\ud800']) {
    const audit = await call(app.url, 'POST', `${sitePath()}/geo/audits`, {
      ...session(),
      headers: { 'idempotency-key': `text-audit-${bad.charCodeAt(0)}` },
      body: { url: `https://text.example/${bad}` },
    });
    assert.equal(audit.status, 400, audit.text);
    assert.deepEqual(
      audit.body.errors?.map((e: { path: string }) => e.path),
      ['/url'],
      audit.text,
    );
  }
  // A query string is UTF-8 bytes, so it can carry a NUL (%00) but no lone surrogate.
  for (const [path, param] of [
    ['answers', 'model'],
    ['citations', 'model'],
    ['citations', 'domain'],
    ['site-checks', 'url'],
  ]) {
    const r = await call(app.url, 'GET', `${sitePath()}/geo/${path}?${param}=a%00b`, session());
    assert.equal(r.status, 400, `${path}?${param}: ${r.text}`);
    assert.deepEqual(
      r.body.errors.map((e: { path: string }) => e.path),
      [`query.${param}`],
    );
  }
});
