import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { RADAR } from '../helpers/cli.ts';

// A network namespace has nothing listening on 127.0.0.1: exactly a fresh machine's view,
// without touching the shared PostgreSQL and Redis. Creating one needs root (CI has it).
const canIsolate = spawnSync('unshare', ['-n', 'true']).status === 0;

test('`radar up` with no services around starts private PostgreSQL and Redis under .radar/ and stops them', { skip: canIsolate ? false : 'needs `unshare -n` (root) to hide the shared services' }, async () => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'radar-fresh-'));
  chmodSync(cwd, 0o755); // the private cluster runs as the postgres user when we are root
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
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('unshare', ['-n', 'sh', '-c', script], { cwd, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn' } });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.stderr.on('data', (d) => (text += d));
      child.on('error', reject);
      child.on('close', () => resolve(text));
    });
    assert.match(out, /READY: .*"status":"ready"/, out);
    assert.match(out, /EXIT: 0/, out);
    assert.match(out, /PG: down/, 'the private PostgreSQL is stopped with Radar');
    assert.match(out, /REDIS: down/, 'the private Redis is stopped with Radar');
    assert.ok(existsSync(path.join(cwd, '.radar', 'pg', 'PG_VERSION')), 'data lives under .radar/');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
