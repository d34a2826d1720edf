import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { COMPRESS_MIN_BYTES, pickEncoding } from '../../src/http/compression.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, createSite, type TestAccount } from '../helpers/fixtures.ts';

let app: TestApp;
let owner: TestAccount;
before(async () => {
  app = await startTestApp();
  owner = await createAccount(app.db);
  // Enough sites that the list is well past the threshold.
  for (let i = 0; i < 8; i++) await createSite(app.url, owner);
});
after(() => app.close());

/** The answer as it crossed the wire (undici's request does not decompress). */
async function raw(path: string, acceptEncoding?: string) {
  const headers: Record<string, string> = { cookie: `__Host-radar_session=${owner.session}` };
  if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
  const r = await request(app.url + path, { headers });
  const body = Buffer.from(await r.body.arrayBuffer());
  const header = (name: string) => {
    const v = r.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  const decoded = () => {
    const coding = header('content-encoding');
    const text = coding === 'br' ? brotliDecompressSync(body) : coding === 'gzip' ? gunzipSync(body) : body;
    return JSON.parse(text.toString('utf8'));
  };
  return { status: r.statusCode, header, body, decoded };
}

describe('Accept-Encoding', () => {
  test('brotli first on a tie, else the higher weight; q=0 refuses; * stands for the rest', () => {
    assert.equal(pickEncoding('gzip, deflate, br, zstd'), 'br');
    assert.equal(pickEncoding('gzip'), 'gzip');
    assert.equal(pickEncoding('br;q=0.5, gzip'), 'gzip');
    assert.equal(pickEncoding('br;q=0, gzip;q=0'), null);
    assert.equal(pickEncoding('identity'), null);
    assert.equal(pickEncoding('*'), 'br');
    assert.equal(pickEncoding('br;q=0, *'), 'gzip');
    assert.equal(pickEncoding('gzip;q=oops'), null);
    assert.equal(pickEncoding(undefined), null);
    assert.equal(pickEncoding(''), null);
  });
});

describe('JSON answers', () => {
  test('a large answer is compressed as the client asks and decodes to the same JSON', async () => {
    const plain = await raw('/api/v1/me/sites');
    assert.equal(plain.status, 200);
    assert.equal(plain.header('content-encoding'), undefined);
    assert.equal(plain.header('vary'), 'accept-encoding');
    assert.ok(plain.body.length >= COMPRESS_MIN_BYTES, `the list is ${plain.body.length} bytes`);
    const expected = plain.decoded();
    for (const [accept, coding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
    ] as const) {
      const r = await raw('/api/v1/me/sites', accept);
      assert.equal(r.header('content-encoding'), coding, accept);
      assert.equal(r.header('vary'), 'accept-encoding');
      assert.ok(r.body.length < plain.body.length / 2, `${coding}: ${r.body.length} of ${plain.body.length} bytes`);
      assert.deepEqual(r.decoded(), expected);
    }
  });

  test('a small answer goes out as it is, still varying on the header', async () => {
    const r = await raw('/api/v1/me', 'br, gzip');
    assert.equal(r.status, 200);
    assert.ok(r.body.length < COMPRESS_MIN_BYTES);
    assert.equal(r.header('content-encoding'), undefined);
    assert.equal(r.header('vary'), 'accept-encoding');
    assert.equal(r.decoded().email, owner.email);
  });

  test('the OpenAPI document, written by its own route, is compressed too', async () => {
    const r = await raw('/api/v1/openapi.json', 'gzip');
    assert.equal(r.header('content-encoding'), 'gzip');
    assert.equal(r.header('cache-control'), 'public, max-age=300');
    assert.equal(r.decoded().openapi, '3.1.0');
  });
});
