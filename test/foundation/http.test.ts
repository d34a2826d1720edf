import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { startFrontDoor } from '../../src/front-door.ts';
import { HEADER_LIMIT_BYTES } from '../../src/http/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import { freePort } from '../helpers/ports.ts';
import { testServices } from '../helpers/services.ts';

let app: TestApp;
let owner: TestAccount;
before(async () => {
  app = await startTestApp();
  owner = await createAccount(app.db);
});
after(() => app.close());

function assertProblem(r: { status: number; headers: Headers; body: any }, status: number, code: string) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(r.body.status, status);
  assert.equal(r.body.code, code);
  assert.equal(typeof r.body.title, 'string');
  assert.equal(typeof r.body.detail, 'string');
  assert.equal(r.body.type, `urn:radar:error:${code}`);
}

test('healthz answers while the process is up', async () => {
  const r = await call(app.url, 'GET', '/healthz');
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { status: 'ok' });
});

test('readyz checks PostgreSQL and Redis', async () => {
  const r = await call(app.url, 'GET', '/readyz');
  assert.equal(r.status, 200);
  assert.equal(r.body.status, 'ready');
});

test('readyz answers 503 with Retry-After when Redis is unreachable', async () => {
  const closedPort = await freePort();
  const services = await testServices({ REDIS_URL: `redis://127.0.0.1:${closedPort}` });
  const door = await startFrontDoor(services.config);
  try {
    const r = await call(`http://127.0.0.1:${door.port}`, 'GET', '/readyz');
    assertProblem(r, 503, 'service_unavailable');
    assert.equal(r.headers.get('retry-after'), '5');
    assert.deepEqual(r.body.errors, [{ path: 'redis', message: 'unreachable' }]);
  } finally {
    await door.close();
    await services.cleanup();
  }
});

test('every answer carries a request id; a sane given one is echoed', async () => {
  const r1 = await call(app.url, 'GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
  assert.equal(r1.headers.get('x-request-id'), 'abc-123');
  const r2 = await call(app.url, 'GET', '/api/v1/nowhere', { headers: { 'x-request-id': 'bad id with spaces' } });
  assert.match(r2.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  assert.equal(r2.body.request_id, r2.headers.get('x-request-id'));
});

test('unknown path: 404 problem; wrong method: 405 with Allow', async () => {
  assertProblem(await call(app.url, 'GET', '/api/v1/nowhere'), 404, 'not_found');
  const r = await call(app.url, 'DELETE', '/api/v1/me', { session: owner.session });
  assertProblem(r, 405, 'method_not_allowed');
  assert.equal(r.headers.get('allow'), 'GET');
});

test('malformed JSON is 400 invalid_json, not 500', async () => {
  for (const raw of ['{"name": ', 'not json', '']) {
    const r = await call(app.url, 'POST', '/api/v1/me/sites', {
      session: owner.session,
      raw,
      headers: { 'content-type': 'application/json' },
    });
    assertProblem(r, 400, 'invalid_json');
  }
});

test('invalid UTF-8 in a body is 400 invalid_json', async () => {
  const r = await call(app.url, 'POST', '/api/v1/me/sites', {
    session: owner.session,
    raw: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    headers: { 'content-type': 'application/json' },
  });
  assertProblem(r, 400, 'invalid_json');
});

test('a non-JSON content type is 415', async () => {
  const r = await call(app.url, 'POST', '/api/v1/me/sites', {
    session: owner.session,
    raw: 'name=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assertProblem(r, 415, 'unsupported_media_type');
});

test('a body over 5 MiB is 413, whether declared or streamed', async () => {
  const big = Buffer.alloc(5 * 1024 * 1024 + 1, 0x20);
  assertProblem(
    await call(app.url, 'POST', '/api/v1/me/sites', {
      session: owner.session,
      raw: big,
      headers: { 'content-type': 'application/json' },
    }),
    413,
    'payload_too_large',
  );

  // Chunked upload without Content-Length: the cap must hold while reading.
  const port = Number(new URL(app.url).port);
  const answer = await new Promise<string>((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write(
        `POST /api/v1/me/sites HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nCookie: __Host-radar_session=${owner.session}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      for (let i = 0; i < 6; i++) sock.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      sock.write('0\r\n\r\n');
    });
    let data = '';
    sock.on('data', (d) => (data += d));
    sock.on('close', () => resolve(data));
    sock.on('error', (err) => (data ? resolve(data) : reject(err)));
  });
  assert.match(answer, /^HTTP\/1\.1 413/);
});

test('a body just under the cap is read whole (and then validated)', async () => {
  const padding = 'x'.repeat(5 * 1024 * 1024 - 200);
  const r = await call(app.url, 'POST', '/api/v1/me/sites', { session: owner.session, body: { name: padding } });
  assertProblem(r, 400, 'validation_failed');
  assert.ok(r.body.errors.some((e: any) => e.path === '/name'));
});

test('request headers over the limit get 431, on both surfaces', async () => {
  const big = 'x'.repeat(HEADER_LIMIT_BYTES + 1024);
  const api = await call(app.url, 'GET', '/api/v1/me', { headers: { 'x-padding': big } });
  assertProblem(api, 431, 'headers_too_large');
  assert.match(api.body.detail, new RegExp(`exceed ${HEADER_LIMIT_BYTES} bytes`));
  const relay = await call(app.url, 'GET', '/v1/models', { headers: { 'x-padding': big } });
  assert.equal(relay.status, 431);
  assert.equal(relay.body.error.code, 'headers_too_large');
  // Up to what uWS parses itself, an oversize is answered, never reset.
  assert.equal(
    (await call(app.url, 'GET', '/healthz', { headers: { cookie: `c=${'x'.repeat(96 * 1024)}` } })).status,
    431,
  );
});

test("a browser's headers with many cookies and a long bearer token fit comfortably", async () => {
  // What a console tab sends: the session among other cookies of the domain (analytics,
  // consent, feature flags, …), client hints and fetch metadata; over 20 KiB in all.
  const cookies = [`__Host-radar_session=${owner.session}`];
  for (let i = 0; cookies.join('; ').length < 20 * 1024; i++) cookies.push(`pref_${i}=${'v'.repeat(600)}`);
  const browser = {
    cookie: cookies.join('; '),
    'user-agent':
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    accept: 'application/json, text/plain, */*',
    'accept-language': 'zh-CN,zh;q=0.9,en-US;q=0.8,en;q=0.7',
    'accept-encoding': 'gzip, deflate, br, zstd',
    referer: `${app.url}/console/sites`,
    'sec-ch-ua': '"Chromium";v="131", "Not_A Brand";v="24"',
    'sec-ch-ua-mobile': '?0',
    'sec-ch-ua-platform': '"Linux"',
    'sec-fetch-dest': 'empty',
    'sec-fetch-mode': 'cors',
    'sec-fetch-site': 'same-origin',
  };
  const me = await call(app.url, 'GET', '/api/v1/me', { headers: browser });
  assert.equal(me.status, 200, me.text);
  assert.equal(me.body.id, owner.id);
  // A 16 KiB bearer token (a JWT with many claims) is read and judged, not refused for its size.
  const jwt = await call(app.url, 'GET', '/v1/models', { bearer: `eyJ${'a'.repeat(16 * 1024)}` });
  assert.equal(jwt.status, 401, jwt.text);
});

test('a member given twice in one object is 400 invalid_json', async () => {
  const raw = '{"name":"Acme","websiteUrl":"https://a.example","description":"dd","category":"chat","name":"Other"}';
  const r = await call(app.url, 'POST', '/api/v1/me/sites', {
    session: owner.session,
    raw,
    headers: { 'content-type': 'application/json' },
  });
  assertProblem(r, 400, 'invalid_json');
  assert.match(r.body.detail, /"name" twice/);
});

test('a stalled request body is cut off with 408', async () => {
  const stalled = await startTestApp({ env: { BODY_TIMEOUT_MS: '500' } });
  try {
    const sock = net.connect(Number(new URL(stalled.url).port), '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write(
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
    );
    let answer = '';
    sock.on('data', (d) => (answer += d));
    const started = Date.now();
    await new Promise((r) => sock.once('close', r));
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /request_timeout/);
    assert.ok(Date.now() - started < 5000);
  } finally {
    await stalled.close();
  }
});
