import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { RADAR } from '../helpers/cli.ts';

// A network namespace has nothing listening on 127.0.0.1: exactly a fresh machine's view,
// without touching the shared PostgreSQL and Redis. Creating one needs root (CI has it).
const canIsolate = spawnSync('unshare', ['-n', 'true']).status === 0;

const skip = canIsolate ? false : 'needs `unshare -n` (root) to hide the shared services';

/** `radar up` in `cwd` inside a fresh network namespace: waits for /readyz, stops it, probes its services. */
function upOnFreshMachine(cwd: string): Promise<string> {
  const script = `
    ip link set lo up
    node ${RADAR} up & up=$!
    for i in $(seq 1 150); do
      body=$(node -e "fetch('http://127.0.0.1:8080/readyz').then(r=>r.text()).then(t=>console.log(t)).catch(()=>{})")
      case "$body" in *ready*) break;; esac
      sleep 0.2
    done
    echo "READY: $body"
    kill -TERM $up; wait $up; echo "EXIT: $?"
    node -e "require('net').connect(54329,'127.0.0.1').on('connect',()=>console.log('PG: up')).on('error',()=>console.log('PG: down'))"
    node -e "require('net').connect(63799,'127.0.0.1').on('connect',()=>console.log('REDIS: up')).on('error',()=>console.log('REDIS: down'))"
  `;
  return new Promise<string>((resolve, reject) => {
    const child = spawn('unshare', ['-n', 'sh', '-c', script], {
      cwd,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn' },
    });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.on('error', reject);
    child.on('close', () => resolve(text));
  });
}

function assertRanAndStopped(out: string): void {
  assert.match(out, /READY: .*"status":"ready"/, out);
  assert.match(out, /EXIT: 0/, out);
  assert.match(out, /PG: down/, 'the private PostgreSQL is stopped with Radar');
  assert.match(out, /REDIS: down/, 'the private Redis is stopped with Radar');
}

test('`radar up` with no services around starts private PostgreSQL and Redis under .radar/ and stops them', {
  skip,
}, async () => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'radar-fresh-'));
  chmodSync(cwd, 0o755); // a checkout the postgres user can enter
  try {
    assertRanAndStopped(await upOnFreshMachine(cwd));
    assert.ok(existsSync(path.join(cwd, '.radar', 'pg', 'PG_VERSION')), 'data lives under .radar/');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('as root, `radar up` starts in a checkout the postgres user cannot enter, and says where the data went', {
  skip,
}, async () => {
  // What a newcomer on a fresh VM does: clone in /root, or here in a `mktemp -d` folder (0700).
  const outer = mkdtempSync(path.join(tmpdir(), 'radar-closed-'));
  const cwd = path.join(outer, 'radar');
  mkdirSync(cwd);
  let data: string | null = null;
  try {
    const out = await upOnFreshMachine(cwd);
    assertRanAndStopped(out);
    const said = /"data":"([^"]+)"[^\n]*cannot enter this checkout/.exec(out);
    assert.ok(said, `the log says where the data went: ${out}`);
    data = said[1]!;
    assert.ok(data.startsWith('/var/lib/radar/radar-'), data);
    assert.ok(existsSync(path.join(data, 'PG_VERSION')), 'the cluster lives where the log says');
  } finally {
    rmSync(outer, { recursive: true, force: true });
    if (data) rmSync(path.dirname(data), { recursive: true, force: true });
  }
});
