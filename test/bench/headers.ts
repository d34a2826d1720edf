/**
 * `npm run bench:headers` — what the front door answers to request headers of growing size and
 * count, as three clients send them: node:http, undici and curl, each over loopback. Prints one
 * line per shape and client: the status, or how the connection ended without one. The limits
 * behind the answers are described in README.md ("Request headers").
 *
 * Needs PostgreSQL and Redis as the tests do (TEST_DATABASE_URL / TEST_REDIS_URL).
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { HEADER_LIMIT_BYTES } from '../../src/http/server.ts';
import { startTestApp } from '../helpers/app.ts';

type Shape = { name: string; headers: Record<string, string> };

function oneHeader(bytes: number): Shape {
  return { name: `one ${bytes}-byte cookie`, headers: { cookie: `c=${'x'.repeat(bytes - 'cookie'.length - 6)}` } };
}
function fields(count: number): Shape {
  const headers: Record<string, string> = {};
  for (let i = 0; i < count; i++) headers[`x-field-${i}`] = 'v';
  return { name: `${count} extra fields`, headers };
}

const shapes: Shape[] = [
  ...[8, 16, 24, 31].map((k) => oneHeader(k * 1024)),
  oneHeader(HEADER_LIMIT_BYTES + 1024),
  ...[48, 60, 64, 100, 256, 1024].map((k) => oneHeader(k * 1024)),
  ...[20, 40, 44, 45, 46, 47, 100].map(fields),
];

function viaNode(url: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

async function viaUndici(url: string, headers: Record<string, string>): Promise<string> {
  try {
    const res = await request(url, { headers });
    await res.body.dump();
    return String(res.statusCode);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  }
}

/** Asynchronous: the front door runs in this process. */
function viaCurl(url: string, headers: Record<string, string>): Promise<string> {
  // Read from a file: one argument may not exceed 128 KiB.
  const file = join(tmpdir(), `radar-headers-${process.pid}`);
  writeFileSync(
    file,
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\n`)
      .join(''),
  );
  const args = ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-H', `@${file}`, url];
  return new Promise((resolve) => {
    execFile('curl', args, { encoding: 'utf8' }, (err, stdout) => resolve(err ? `curl exit ${err.code}` : stdout));
  });
}

const app = await startTestApp();
try {
  const url = `${app.url}/healthz`;
  console.log(`front-door limit: ${HEADER_LIMIT_BYTES} bytes of header names and values`);
  console.log(['shape'.padEnd(28), 'node:http'.padEnd(12), 'undici'.padEnd(28), 'curl'].join(' '));
  for (const s of shapes) {
    const row = [await viaNode(url, s.headers), await viaUndici(url, s.headers), await viaCurl(url, s.headers)];
    console.log([s.name.padEnd(28), row[0]!.padEnd(12), row[1]!.padEnd(28), row[2]].join(' '));
  }
} finally {
  await app.close();
}
