import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashSecret } from '../../src/auth/secrets.ts';
import { createDb } from '../../src/db/connection.ts';
import { newRelayKey } from '../../src/relay/keys.ts';
import { insertChannel, insertKey, NO_KEY_SETTINGS } from '../../src/relay/repo.ts';
import { exited, logLine, radarDaemon, waitForHttp } from '../helpers/cli.ts';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/ports.ts';
import { testServices, type TestServices } from '../helpers/services.ts';
import { startFakeUpstream } from '../relay/fake-upstream.ts';

let services: TestServices;
before(async () => {
  services = await testServices();
});
after(() => services.cleanup());

function envFor(port: number): Record<string, string> {
  return {
    DATABASE_URL: services.config.DATABASE_URL,
    REDIS_URL: services.config.REDIS_URL,
    QUEUE_PREFIX: services.config.QUEUE_PREFIX,
    PORT: String(port),
    LOG_LEVEL: 'silent',
    SHUTDOWN_TIMEOUT_MS: '10000',
  };
}

test('SIGTERM on `radar serve` stops accepting, finishes the in-flight request, refuses new ones on open connections, exits 0', async () => {
  const port = await freePort();
  // Debug level: the server's 'request received' line says when the slow request is in flight.
  const child = radarDaemon(['serve'], { ...envFor(port), LOG_LEVEL: 'debug' });
  child.stdout!.resume();
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`);
    // A kept-alive connection that has had its answer and is idle when the signal comes.
    const idle = net.connect(port, '127.0.0.1');
    let idleAnswers = '';
    idle.on('data', (d) => (idleAnswers += d));
    const idleClosed = new Promise((r) => idle.once('close', r));
    idle.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    while (!idleAnswers.includes('\r\n\r\n')) await once(idle, 'data');
    // A request whose body is still arriving when the signal comes.
    const sock = net.connect(port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'secret-password' });
    const inFlight = logLine(child, (l) => l.msg === 'request received' && l.path === '/api/v1/auth/login');
    sock.write(
      `POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    let answer = '';
    sock.on('data', (d) => (answer += d));
    const closed = new Promise((r) => sock.once('close', r));
    await inFlight;

    child.kill('SIGTERM');
    // Once the listen socket is closed, new connections are refused.
    await eventually(
      () =>
        new Promise<true | undefined>((resolve) => {
          const probe = net.connect(port, '127.0.0.1');
          probe.once('connect', () => {
            probe.destroy();
            resolve(undefined);
          });
          probe.once('error', () => resolve(true));
        }),
      5000,
      'new connections to be refused after SIGTERM',
    );
    assert.equal(child.exitCode, null, 'still running while a request is in flight');
    // A new request on the old connection is refused too, with a retry hint, and the connection closed.
    idle.write('GET /api/v1/me HTTP/1.1\r\nHost: x\r\n\r\n');
    await idleClosed;
    const late = idleAnswers.slice(idleAnswers.indexOf('HTTP/1.1', 1));
    assert.match(late, /^HTTP\/1\.1 503 /);
    assert.match(late, /\r\nretry-after: 1\r\n/i);
    assert.match(late, /"code":"service_unavailable"/);

    sock.write(body.slice(10));
    await closed;
    assert.match(answer, /^HTTP\/1\.1 401 /, 'the in-flight request got its real answer');
    const { code } = await exited(child);
    assert.equal(code, 0);
  } finally {
    child.kill('SIGKILL');
  }
});

test('SIGTERM on `radar serve` while many clients read streams slowly: exits 0 within SHUTDOWN_TIMEOUT_MS', async () => {
  const streams = 200;
  // Long streams (2 MB each at 80 KB/s) that no client reads as fast as they come.
  const fake = await startFakeUpstream({ chunks: 500, padBytes: 4096, chunkDelayMs: 50 });
  await insertChannel(services.db, {
    name: 'slow-streams',
    baseUrl: `${fake.url}/v1`,
    apiKey: null,
    models: ['slow-model'],
    protocols: ['chat'],
    priority: 0,
    weight: 1,
  });
  const key = newRelayKey();
  await insertKey(services.db, {
    ...NO_KEY_SETTINGS,
    name: 'slow streams',
    keyHash: hashSecret(key),
    prefix: key.slice(0, 10),
    models: ['*'],
    accountId: null,
    group: 'default',
  });
  const port = await freePort();
  const shutdownMs = 3000;
  const child = radarDaemon(['serve'], { ...envFor(port), LOG_LEVEL: 'warn', SHUTDOWN_TIMEOUT_MS: String(shutdownMs) });
  let output = '';
  for (const s of [child.stdout!, child.stderr!]) s.on('data', (d) => (output = (output + d).slice(-8000)));
  const sockets: net.Socket[] = [];
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`);
    const body = JSON.stringify({ model: 'slow-model', messages: [{ role: 'user', content: 'go' }], stream: true });
    const request = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    let streaming = 0;
    for (let i = 0; i < streams; i++) {
      const s = net.connect(port, '127.0.0.1');
      s.on('error', () => undefined);
      // Reads its first bytes, then stops reading: the relay's writes back up.
      s.once('data', (d) => {
        if (d.subarray(0, 15).toString() === 'HTTP/1.1 200 OK') streaming++;
        s.pause();
      });
      s.write(request);
      sockets.push(s);
    }
    await eventually(() => (streaming === streams ? true : undefined), 60_000, `${streams} streams under way`);
    child.kill('SIGTERM');
    // Not a timing: a front door that never exits is what this catches, so the bound is loose.
    const gone = await Promise.race([exited(child), sleep(shutdownMs + 30_000).then(() => null)]);
    assert.ok(gone, `still running ${shutdownMs + 30_000} ms after SIGTERM: ${output}`);
    assert.equal(gone.code, 0, output);
  } finally {
    child.kill('SIGKILL');
    for (const s of sockets) s.destroy();
    await fake.close();
  }
});

test('`radar up` migrates, runs the front door and a worker, and stops them all on SIGTERM', async () => {
  // A database that does not exist yet: `up` must create and migrate it.
  const fresh = new URL(services.config.DATABASE_URL);
  fresh.pathname += '_up';
  const port = await freePort();
  const child = radarDaemon(['up'], { ...envFor(port), DATABASE_URL: fresh.toString() });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  try {
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 30_000);
    const db = createDb({ url: fresh.toString(), poolSize: 1, applicationName: 'radar-test' });
    const applied = await db.any('SELECT name FROM schema_migrations').finally(() => db.$pool.end());
    assert.ok(
      applied.some((r) => r.name === '0001_foundation.sql'),
      'the new database was migrated',
    );
    // No admin in the new database: the first-run link is printed, and it creates one.
    const link = new RegExp(`http://127\\.0\\.0\\.1:${port}/setup#token=([\\w-]{43})`).exec(stderr);
    assert.ok(link, `setup link printed: ${stderr}`);
    const setup = await fetch(`http://127.0.0.1:${port}/api/v1/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: link[1], email: 'first@example.com', password: 'first admin pw' }),
    });
    assert.equal(setup.status, 200, await setup.clone().text());
    assert.equal((await setup.json()).account.admin, true);
    child.kill('SIGTERM');
    const { code } = await exited(child);
    assert.equal(code, 0, stderr);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`), 'the front door is gone');
  } finally {
    child.kill('SIGKILL');
    await services.db.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [fresh.pathname.slice(1)]);
  }
});

test('children of `radar up` shut down by themselves when the supervisor is killed outright', async () => {
  const port = await freePort();
  const child = radarDaemon(['up'], envFor(port));
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 30_000);
    child.kill('SIGKILL');
    await exited(child);
    // Its pid is the supervisor's secret: the front door is gone when its port stops answering.
    await eventually(
      () =>
        fetch(`http://127.0.0.1:${port}/healthz`).then(
          () => undefined,
          () => true,
        ),
      15_000,
      'the orphaned front door to stop',
    );
  } finally {
    child.kill('SIGKILL');
  }
});
