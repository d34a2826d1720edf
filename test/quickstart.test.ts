import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openSession } from '../src/auth/sessions.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/eventually.ts';
import { call } from './helpers/http.ts';
import { deltas, startFakeUpstream, type FakeUpstream } from './relay/fake-upstream.ts';

/**
 * README "Five-minute start" (issue #20): every `sh` block of the section, in order, in one
 * bash, against a fresh Radar (front door and workers in this process, its own database) and
 * the fake model provider as the upstream, so the README cannot rot.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));

let app: TestApp;
let upstream: FakeUpstream;
let home: string;

before(async () => {
  app = await startTestApp({ workers: ['ingest', 'rollup', 'usage'] });
  upstream = await startFakeUpstream();
  home = mkdtempSync(path.join(os.tmpdir(), 'radar-quickstart-'));
});
after(async () => {
  rmSync(home, { recursive: true, force: true });
  await upstream?.close();
  await app?.close();
});

/** The `sh` blocks of one README section, in order. */
function shellBlocks(heading: string): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `README has a "## ${heading}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

test("the README's five-minute start works as written", async () => {
  const blocks = shellBlocks('Five-minute start');
  assert.ok(blocks.length >= 7, 'account, site, curl, SDK, dashboard, relay, openai, codex');
  // Codex would fetch updates and analytics from the internet: a proxy that refuses at once.
  const noNet = 'http://127.0.0.1:9';
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    CODEX_HOME: home,
    npm_config_cache: path.join(home, 'npm'),
    HTTP_PROXY: noNet,
    HTTPS_PROXY: noNet,
    ALL_PROXY: noNet,
    NO_PROXY: '127.0.0.1,localhost',
    RADAR: app.url,
    DATABASE_URL: app.config.DATABASE_URL,
    REDIS_URL: app.config.REDIS_URL,
    QUEUE_PREFIX: app.config.QUEUE_PREFIX,
    UPSTREAM_URL: upstream.base,
    OPENAI_API_KEY: 'sk-upstream-test',
  };
  const script = `set -euo pipefail\n${blocks.join('\n')}`;
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  assert.equal(run.code, 0, `the quickstart failed:\n${run.stdout}\n${run.stderr}`);

  assert.match(run.stdout, /"batch_id":"quickstart-1"[^\n]*"status":"completed"/, 'curl: the receipt');
  assert.match(run.stdout, /"applied":1[,}][^\n]*"rejected":0/, 'SDK: its counters');
  const answer = deltas(5).join('');
  assert.equal(run.stdout.split(answer).length - 1, 2, 'the openai SDK and Codex both got the answer');
  assert.ok(
    upstream.received.some((r) => r.path === '/v1/responses' && r.body.client_metadata),
    'Codex went through the relay',
  );

  // What the dashboard shows: the curl's visit in the overview, once rolled up.
  const siteId = /open http:\/\/[^/]+\/sites\/([0-9a-f-]{36})\/analytics/.exec(run.stdout)?.[1];
  assert.ok(siteId, run.stdout);
  const owner = await app.db.one<{ id: string }>(`SELECT id FROM accounts WHERE email = 'me@example.com'`);
  const { token } = await openSession(app.db, owner.id, 1);
  await eventually(
    async () => {
      const r = await call(app.url, 'GET', `/api/v1/sites/${siteId}/analytics/overview?tz=UTC`, { session: token });
      assert.equal(r.status, 200, r.text);
      return r.body.data.visits === 1 ? true : undefined;
    },
    30_000,
    'the visit on the dashboard',
  );
});
