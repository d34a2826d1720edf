import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { request as undiciRequest } from 'undici';
import { HEADER_LIMIT_BYTES } from '../../src/http/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, type TestAccount } from '../helpers/fixtures.ts';

// Radar answers these before it has read the body the client is still sending. Each client
// must read the answer, not a reset (EPIPE / ECONNRESET) caused by closing on unread data.
// Uploads are paced like a real network's, so the answer arrives while the client still sends
// (on loopback an unpaced body is all in the kernel's buffers before the answer is written).

let app: TestApp;
let owner: TestAccount;
let dir: string;
before(async () => {
  app = await startTestApp();
  owner = await createAccount(app.db);
  dir = await mkdtemp(join(tmpdir(), 'radar-early-'));
});
after(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

interface Early {
  name: string;
  method: string;
  path: string;
  headers: () => Record<string, string>;
  size: number;
  status: number;
  code: string;
}

const MiB = 1024 * 1024;
const json = { 'content-type': 'application/json' };
const EARLY: Early[] = [
  {
    name: '413 for a declared 6 MiB body',
    method: 'POST',
    path: '/api/v1/me/sites',
    headers: () => ({ ...json, cookie: `__Host-radar_session=${owner.session}`, origin: app.url }),
    size: 6 * MiB,
    status: 413,
    code: 'payload_too_large',
  },
  {
    name: '431 for a huge Authorization header',
    method: 'POST',
    path: '/v1/responses',
    headers: () => ({ ...json, authorization: `Bearer sk-${'x'.repeat(HEADER_LIMIT_BYTES)}` }),
    size: 2 * MiB,
    status: 431,
    code: 'headers_too_large',
  },
  {
    name: '404 for a doubled /v1 with a large body',
    method: 'POST',
    path: '/v1/v1/responses',
    headers: () => ({ ...json, authorization: 'Bearer sk-nothing' }),
    size: 4 * MiB,
    status: 404,
    code: 'unknown_endpoint',
  },
  {
    name: '405 for a body sent to a read-only path',
    method: 'PUT',
    path: '/api/v1/me',
    headers: () => ({ ...json, cookie: `__Host-radar_session=${owner.session}`, origin: app.url }),
    size: 4 * MiB,
    status: 405,
    code: 'method_not_allowed',
  },
];

function errorCode(body: any): string {
  return body.code ?? body.error?.code;
}

/** The body in 256 KiB pieces with a pause between them. */
async function* paced(body: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < body.length; at += PIECE) {
    yield body.subarray(at, at + PIECE);
    await sleep(2);
  }
}
const PIECE = 256 * 1024;

/** node:http, as axios and most SDKs use it: any socket error before the answer is a failure. */
function viaNodeHttp(e: Early, body: Buffer, chunked = false): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const headers = {
      ...e.headers(),
      ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) }),
    };
    const req = http.request(app.url + e.path, { method: e.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    void (async () => {
      for await (const piece of paced(body)) {
        if (req.destroyed) return;
        if (!req.write(piece)) await new Promise((drained) => req.once('drain', drained));
      }
      req.end();
    })();
  });
}

async function viaUndici(e: Early, body: Buffer): Promise<{ status: number; body: any }> {
  const headers = { ...e.headers(), 'content-length': String(body.length) };
  const res = await undiciRequest(app.url + e.path, {
    method: e.method as 'POST',
    headers,
    body: Readable.from(paced(body)),
  });
  return { status: res.statusCode, body: await res.body.json() };
}

async function viaCurl(e: Early, body: Buffer): Promise<{ status: number; body: any }> {
  const file = join(dir, `${e.status}.json`);
  await writeFile(file, body);
  // --limit-rate paces the upload too.
  const args = [
    '-sS',
    '--limit-rate',
    '16M',
    '-X',
    e.method,
    '--data-binary',
    `@${file}`,
    '-w',
    '\n%{http_code}',
    app.url + e.path,
  ];
  for (const [k, v] of Object.entries(e.headers())) args.push('-H', `${k}: ${v}`);
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('curl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    let err = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`curl exited ${code}: ${err}`))));
  });
  const cut = out.lastIndexOf('\n');
  return { status: Number(out.slice(cut + 1)), body: JSON.parse(out.slice(0, cut)) };
}

for (const e of EARLY) {
  test(`early answer readable by node:http, undici and curl: ${e.name}`, async () => {
    const body = Buffer.alloc(e.size, 0x20);
    for (const [client, send] of [
      ['node:http', viaNodeHttp],
      ['undici', viaUndici],
      ['curl', viaCurl],
    ] as const) {
      const r = await send(e, body);
      assert.equal(r.status, e.status, `${client}: ${JSON.stringify(r.body)}`);
      assert.equal(errorCode(r.body), e.code, client);
    }
  });
}

test('early answer to a chunked upload over the cap is readable by node:http', async () => {
  const r = await viaNodeHttp(EARLY[0]!, Buffer.alloc(6 * MiB, 0x20), true);
  assert.equal(r.status, 413);
  assert.equal(r.body.code, 'payload_too_large');
});
