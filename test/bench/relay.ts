/**
 * `npm run bench:relay` — the relay against a fake provider on loopback, measured four ways
 * in one run: (a) straight to the provider, (b) through nginx `proxy_pass` with buffering off,
 * (c) through the Portkey AI gateway (`@portkey-ai/gateway`, a Node relay), (d) through Radar.
 * Prints requests/s and p50/p99 latency for non-streaming calls and for 200-chunk streams, the
 * latency each relay adds to sequential calls, each relay's RSS idle and while it serves many
 * slow-reading streams, and Radar's ratio to nginx and to Portkey on each figure.
 *
 * Environment: BENCH_SECONDS (per target and round of a concurrent phase, default 5),
 * BENCH_ROUNDS (rounds of a concurrent phase, the targets taking turns; default 3),
 * BENCH_WARMUP_SECONDS (the same load, unmeasured, before a concurrent phase; default 3),
 * BENCH_CONCURRENCY (default 32),
 * BENCH_SEQUENTIAL (calls, default 2000), BENCH_SLOW_STREAMS (default 1000), BENCH_PROFILE_DIR
 * (when set, Radar runs with --cpu-prof and writes its profile there), BENCH_PHASES (some of
 * `calls,streams,sequential,slow`, default all; e.g. `streams` to profile only streaming),
 * BENCH_RADAR_FLAGS (node flags for Radar's front door instead of those `radar up` gives it,
 * FRONT_DOOR_NODE_FLAGS; e.g. `--max-semi-space-size=16` to weigh a flag within one machine's day).
 * Needs PostgreSQL and Redis as Radar does (DATABASE_URL's server, REDIS_URL); nginx is
 * optional (Debian: `apt-get install -y nginx`); without it the nginx column is skipped. Portkey
 * is a dev dependency; a relay that cannot stream (Portkey 1.15.2 on Node 20) is left out of the
 * streaming phases, with the reason printed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { hashSecret } from '../../src/auth/secrets.ts';
import { FRONT_DOOR_NODE_FLAGS } from '../../src/cli/node-flags.ts';
import { createDb } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';
import { newRelayKey } from '../../src/relay/keys.ts';
import { insertChannel, insertKey, insertPrice, NO_KEY_SETTINGS } from '../../src/relay/repo.ts';
import { freePort } from '../helpers/ports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 2000);
const SLOW_STREAMS = Number(process.env.BENCH_SLOW_STREAMS ?? 1000);
const PHASES = new Set((process.env.BENCH_PHASES || 'calls,streams,sequential,slow').split(','));
const PG = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/radar';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const children: ChildProcess[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

async function waitForPort(port: number, child: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net
        .connect(port, '127.0.0.1', () => {
          s.destroy();
          resolve(true);
        })
        .on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function start(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return child;
}

/** A fake provider in its own process, so it never competes with the load generator's loop. */
async function startFake(args: string[]): Promise<{ url: string; pid: number }> {
  const child = start(process.execPath, ['--import', 'tsx', 'test/relay/fake-upstream.ts', ...args]);
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { url: (JSON.parse(line) as { url: string }).url, pid: child.pid! };
}

async function startNginx(
  upstreamPort: number,
  bigUpstreamPort: number,
): Promise<{ url: string; bigUrl: string; pids: number[] } | null> {
  if (spawnSync('nginx', ['-v']).error) {
    console.log(
      'nginx not found: the nginx column is skipped. Install it with `apt-get install -y nginx` (Debian/Ubuntu).',
    );
    return null;
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'radar-bench-nginx-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const port = await freePort();
  const bigPort = await freePort();
  // One worker, like Radar's one event loop; buffering off in both directions so nginx
  // forwards each frame as it comes, which is what a streaming relay must do.
  await writeFile(
    path.join(dir, 'nginx.conf'),
    `
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream fake { server 127.0.0.1:${upstreamPort}; keepalive 512; }
  upstream fakebig { server 127.0.0.1:${bigUpstreamPort}; keepalive 512; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://fake;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
  server {
    listen 127.0.0.1:${bigPort};
    location / {
      proxy_pass http://fakebig;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
}
`,
  );
  const child = start('nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf')]);
  await waitForPort(port, child, 'nginx');
  const workers = spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number);
  return { url: `http://127.0.0.1:${port}`, bigUrl: `http://127.0.0.1:${bigPort}`, pids: [child.pid!, ...workers] };
}

/**
 * The Portkey AI gateway (dev dependency `@portkey-ai/gateway`), told per request to forward
 * to an OpenAI-compatible host: `x-portkey-provider: openai` and `x-portkey-custom-host`.
 */
async function startPortkey(): Promise<{ url: string; pid: number } | null> {
  let entry: string;
  try {
    const pkg = fileURLToPath(import.meta.resolve('@portkey-ai/gateway/package.json'));
    const { bin } = JSON.parse(await readFile(pkg, 'utf8')) as { bin: string };
    entry = path.join(path.dirname(pkg), bin);
  } catch {
    console.log('@portkey-ai/gateway is not installed (npm install): the portkey column is skipped.');
    return null;
  }
  const port = await freePort();
  const child = start(process.execPath, [entry, `--port=${port}`, '--headless']);
  child.stdout!.resume(); // its start banner
  await waitForPort(port, child, 'portkey');
  return { url: `http://127.0.0.1:${port}`, pid: child.pid! };
}

function portkeyHeaders(upstream: string): Record<string, string> {
  return {
    authorization: 'Bearer bench',
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': `${upstream}/v1`,
  };
}

/** Why `t` cannot relay a stream, or null when one goes through whole. */
async function streamFailure(t: Target): Promise<string | null> {
  const pool = new Pool(t.url, { connections: 1 });
  try {
    await once_(pool, t, STREAM, true);
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await pool.close();
  }
}

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** Processes doing the forwarding, whose CPU time is charged to each call. */
  pids: number[];
  /** Where and how the slow-reading streams go (to the provider of 8 MB streams). */
  big?: { url: string; headers: Record<string, string> };
}

/** User + system CPU milliseconds a process has used so far. */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in USER_HZ (100)
}

async function cpuOf(pids: readonly number[]): Promise<number> {
  let total = 0;
  for (const pid of pids) total += await cpuMs(pid);
  return total;
}

const CHAT = JSON.stringify({
  model: 'bench-model',
  messages: [{ role: 'user', content: 'hello there' }],
  max_tokens: 16,
});
const STREAM = JSON.stringify({
  model: 'bench-model',
  messages: [{ role: 'user', content: 'hello there' }],
  stream: true,
});

async function once_(pool: Pool, t: Target, body: string, stream: boolean): Promise<number> {
  const t0 = performance.now();
  const res = await pool.request({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', ...t.headers },
    body,
  });
  let last = '';
  let first: string | null = null;
  for await (const chunk of res.body) {
    first ??= (chunk as Buffer).toString('utf8', 0, 200);
    last = (chunk as Buffer).toString('utf8', Math.max(0, (chunk as Buffer).length - 20));
  }
  if (res.statusCode !== 200) throw new Error(`${t.name}: status ${res.statusCode}: ${first}`);
  if (stream && !last.includes('[DONE]')) throw new Error(`${t.name}: stream did not end with [DONE]`);
  return performance.now() - t0;
}

function pct(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** CPU milliseconds the forwarding processes spent per call (direct: the provider's own). */
  cpuPerCall: number;
}

/** Keeps `concurrency` calls in flight until `until`; returns each call's latency. */
async function drive(
  pool: Pool,
  t: Target,
  body: string,
  stream: boolean,
  concurrency: number,
  until: number,
): Promise<number[]> {
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) latencies.push(await once_(pool, t, body, stream));
    }),
  );
  return latencies;
}

/** What one measured round of one target took. */
interface Round {
  latencies: number[];
  seconds: number;
  cpuMs: number;
}

/**
 * Concurrent load on every target, measured in `rounds` rounds that take the targets in
 * turn, so that a slow spell of this shared machine falls on all of them alike instead of on
 * whichever happened to run then. Each target first gets the same load unmeasured:
 * connections, caches, and for Radar the JIT, which otherwise compiles its hot path inside
 * the measured window. Returns each target's rounds.
 */
async function load(
  targets: readonly Target[],
  body: string,
  stream: boolean,
  concurrency: number,
  seconds: number,
  rounds: number,
): Promise<Map<Target, Round[]>> {
  const pools = new Map(targets.map((t) => [t, new Pool(t.url, { connections: concurrency, pipelining: 1 })]));
  const measured = new Map<Target, Round[]>(targets.map((t) => [t, []]));
  try {
    for (const t of targets)
      await drive(pools.get(t)!, t, body, stream, concurrency, performance.now() + WARMUP_SECONDS * 1000);
    for (let r = 0; r < rounds; r++) {
      for (const t of targets) {
        const cpu0 = await cpuOf(t.pids);
        const started = performance.now();
        const latencies = await drive(pools.get(t)!, t, body, stream, concurrency, started + seconds * 1000);
        measured
          .get(t)!
          .push({ latencies, seconds: (performance.now() - started) / 1000, cpuMs: (await cpuOf(t.pids)) - cpu0 });
      }
    }
    return measured;
  } finally {
    await Promise.all([...pools.values()].map((p) => p.close()));
  }
}

/** One target's rounds as one figure: calls over time, latency percentiles, CPU per call. */
function summarize(rounds: readonly Round[]): LoadResult {
  const latencies = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = rounds.reduce((s, r) => s + r.seconds, 0);
  const cpuMs = rounds.reduce((s, r) => s + r.cpuMs, 0);
  return {
    rps: latencies.length / seconds,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    cpuPerCall: cpuMs / latencies.length,
  };
}

const rate = (r: Round) => r.latencies.length / r.seconds;

/**
 * `n` calls per target, one at a time on one connection each, in rounds that take the
 * targets in turn (like `load`), so that the added latency, a difference of two targets'
 * figures, is not a difference of two spells of this shared machine. There are `rounds`
 * rounds per target, each starting one target further, so that every target follows every
 * other equally often: Portkey leaves the machine busy for a while after its turn, which
 * added 0.05–0.1 ms to the p50 of whichever target came next.
 */
async function sequential(targets: readonly Target[], n: number, rounds: number): Promise<Map<Target, LoadResult>> {
  const pools = new Map(targets.map((t) => [t, new Pool(t.url, { connections: 1 })]));
  const latencies = new Map<Target, number[]>(targets.map((t) => [t, []]));
  const seconds = new Map<Target, number>(targets.map((t) => [t, 0]));
  const cpu = new Map<Target, number>(targets.map((t) => [t, 0]));
  const turns = rounds * targets.length;
  const perRound = Math.ceil(n / turns);
  try {
    for (const t of targets) for (let i = 0; i < 200; i++) await once_(pools.get(t)!, t, CHAT, false);
    for (let r = 0; r < turns; r++) {
      for (let j = 0; j < targets.length; j++) {
        const t = targets[(r + j) % targets.length]!;
        const pool = pools.get(t)!;
        const cpu0 = await cpuOf(t.pids);
        const started = performance.now();
        for (let i = 0; i < perRound; i++) latencies.get(t)!.push(await once_(pool, t, CHAT, false));
        seconds.set(t, seconds.get(t)! + (performance.now() - started) / 1000);
        cpu.set(t, cpu.get(t)! + (await cpuOf(t.pids)) - cpu0);
      }
    }
  } finally {
    await Promise.all([...pools.values()].map((p) => p.close()));
  }
  return new Map(
    targets.map((t) => {
      const sorted = latencies.get(t)!.sort((a, b) => a - b);
      const calls = sorted.length;
      return [
        t,
        { rps: calls / seconds.get(t)!, p50: pct(sorted, 50), p99: pct(sorted, 99), cpuPerCall: cpu.get(t)! / calls },
      ];
    }),
  );
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) * 1024;
}

async function rssOfAll(pids: readonly number[]): Promise<number> {
  let total = 0;
  for (const pid of pids) total += await rssOf(pid);
  return total;
}

interface SlowResult {
  /** RSS of the target's processes before the first stream, at its peak, and after the clients left. */
  before: number;
  peak: number;
  after: number;
  bytes: number;
  /** Streams that answered 200 and delivered data. */
  streaming: number;
}

/**
 * Many streams whose clients take one socket read a second (at most 64 KiB), slower than
 * the provider sends. Reports the relay's resident memory (all its processes) while they all
 * stream.
 */
async function slowReaders(t: Target, n: number, seconds: number): Promise<SlowResult> {
  const big = t.big!;
  const { hostname, port } = new URL(big.url);
  // One call first: Radar seeds the key's budget from PostgreSQL on its first call, which a
  // burst of 1,000 first calls would otherwise all do at once.
  const warm = new Pool(big.url.replace(/\/$/, ''), { connections: 1 });
  await once_(warm, { ...t, headers: big.headers }, CHAT, false).finally(() => warm.close());
  const before = await rssOfAll(t.pids);
  let bytes = 0;
  let streaming = 0;
  const body = JSON.stringify({ model: 'bench-big', messages: [{ role: 'user', content: 'go' }], stream: true });
  const headers = Object.entries(big.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const request = `POST /v1/chat/completions HTTP/1.1\r\nHost: ${hostname}\r\n${headers}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const sockets: net.Socket[] = [];
  for (let i = 0; i < n; i++) {
    const s = net.connect(Number(port), hostname);
    s.setNoDelay(true);
    s.on('error', () => undefined);
    let first = true;
    s.on('data', (d) => {
      if (first && d.subarray(0, 15).toString() === 'HTTP/1.1 200 OK') streaming++;
      first = false;
      bytes += d.length;
      s.pause();
    });
    s.write(request);
    sockets.push(s);
    if (i % 100 === 99) await new Promise((r) => setTimeout(r, 20));
  }
  const tick = setInterval(() => {
    for (const s of sockets) s.resume();
  }, 1000);
  let peak = before;
  // The window starts once every stream is under way (or after 30 s, whichever is first).
  const rampDeadline = Date.now() + 30_000;
  while (streaming < n && Date.now() < rampDeadline) {
    peak = Math.max(peak, await rssOfAll(t.pids));
    await new Promise((r) => setTimeout(r, 100));
  }
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    peak = Math.max(peak, await rssOfAll(t.pids));
    await new Promise((r) => setTimeout(r, 100));
  }
  clearInterval(tick);
  for (const s of sockets) s.destroy();
  await new Promise((r) => setTimeout(r, 1000));
  return { peak, before, after: await rssOfAll(t.pids), bytes, streaming };
}

/** The figures Radar is compared on, per target. */
interface Figures {
  addedP50: number;
  callsPerSecond: number;
  streamsPerSecond: number;
  cpuPerStream: number;
  /** Peak RSS with the slow-reading streams. */
  slowPeak: number;
}

type Verdict = (met: boolean, what: string) => void;

/** Every relay (not the provider itself) under the same slow-reading streams, one after the other. */
async function slowPhase(
  targets: readonly Target[],
  figure: (target: string, name: keyof Figures, value: number) => void,
  verdict: Verdict,
): Promise<void> {
  console.log(
    `\n${SLOW_STREAMS} concurrent slow-reading streams per relay (provider 80 KB/s each, readers ≤ 64 KiB/s)`,
  );
  console.log('target   streaming   RSS before     peak    after   per stream   clients read');
  for (const t of targets) {
    if (!t.big) continue;
    const slow = await slowReaders(t, SLOW_STREAMS, Math.max(10, SECONDS));
    const perStream = (slow.peak - slow.before) / Math.max(1, slow.streaming);
    figure(t.name, 'slowPeak', slow.peak);
    console.log(
      `${t.name.padEnd(8)} ${String(slow.streaming).padStart(9)} ${MB(slow.before).padStart(12)} ${MB(slow.peak).padStart(8)} ${MB(slow.after).padStart(8)} ${`${(perStream / 1024).toFixed(0)} KB`.padStart(12)} ${MB(slow.bytes).padStart(14)}`,
    );
    if (t.name !== 'radar') continue;
    const all = slow.streaming === SLOW_STREAMS;
    verdict(slow.before < 80 * MiB, `radar RSS < 80 MB before the streams (${MB(slow.before)})`);
    verdict(
      all && perStream < 48 * 1024,
      `radar < 48 KB per open stream (${(perStream / 1024).toFixed(0)} KB, ${slow.streaming} streaming)`,
    );
    verdict(
      all && slow.peak < 150 * MiB,
      `radar RSS < 150 MB with ${SLOW_STREAMS} slow streams (${MB(slow.peak)}, ${slow.streaming} streaming)`,
    );
  }
}

/** Radar's figures over nginx's and Portkey's, from this run. */
function printRatios(figures: ReadonlyMap<string, Partial<Figures>>, verdict: Verdict): void {
  const rows: [keyof Figures, string, (v: number) => string, 'higher' | 'lower'][] = [
    ['addedP50', 'added p50, sequential', (v) => `${v.toFixed(3)} ms`, 'lower'],
    ['callsPerSecond', 'plain calls/s', (v) => v.toFixed(0), 'higher'],
    ['streamsPerSecond', '200-chunk streams/s', (v) => v.toFixed(0), 'higher'],
    ['cpuPerStream', 'CPU per stream', (v) => `${v.toFixed(3)} ms`, 'lower'],
    ['slowPeak', `RSS, ${SLOW_STREAMS} slow streams`, MB, 'lower'],
  ];
  const radar = figures.get('radar')!;
  const peers = ['nginx', 'portkey'].filter((p) => figures.has(p));
  const cell = (v: string) => v.padStart(14);
  console.log('\nradar beside its peers, same run (added p50, CPU and RSS: lower is better)');
  console.log(
    `${'figure'.padEnd(26)}${cell('radar')}${peers.map((p) => cell(p)).join('')}${peers.map((p) => cell(`radar/${p}`)).join('')}`,
  );
  for (const [name, label, show, better] of rows) {
    const mine = radar[name];
    const values = peers.map((p) => figures.get(p)![name]);
    // A ratio to a figure at or below zero (nginx adds ~0 ms) says nothing.
    const ratios = values.map((v) => (mine === undefined || v === undefined || v <= 0 ? '—' : (mine / v).toFixed(2)));
    console.log(
      `${label.padEnd(26)}${cell(mine === undefined ? 'n/a' : show(mine))}${values.map((v) => cell(v === undefined ? 'n/a' : show(v))).join('')}${ratios.map(cell).join('')}`,
    );
    const theirs = figures.get('portkey')?.[name];
    if (mine !== undefined && theirs !== undefined)
      verdict(better === 'higher' ? mine > theirs : mine < theirs, `radar ahead of portkey on ${label}`);
  }
}

/** Deletes the keys under `prefix` (queues, jobs, rate-limit buckets) once Radar has stopped. */
async function dropRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1000 }) as AsyncIterable<string[]>) {
      if (keys.length) await redis.unlink(...keys);
    }
  } finally {
    redis.disconnect();
  }
}

const ms = (v: number) => v.toFixed(3).padStart(8);
const MiB = 1024 * 1024;
const MB = (v: number) => `${(v / MiB).toFixed(0)} MB`;

async function main(): Promise<void> {
  const fake = await startFake(['--chunks', '200']);
  const fakeUrl = fake.url;
  // 8 MiB per stream at 80 KB/s: faster than the slow readers below take it.
  const bigFakeUrl = (await startFake(['--chunks', '2000', '--pad', '4096', '--delay', '50'])).url;

  const dbUrl = new URL(PG);
  dbUrl.pathname = `/radar_bench_${Date.now().toString(36)}`;
  await migrate(dbUrl.toString());
  const db = createDb({ url: dbUrl.toString(), poolSize: 1, applicationName: 'radar-bench' });
  cleanups.push(async () => {
    await db.$pool.end();
    const adminUrl = new URL(PG);
    adminUrl.pathname = '/postgres';
    const admin = createDb({ url: adminUrl.toString(), poolSize: 1, applicationName: 'radar-bench' });
    await admin
      .none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [dbUrl.pathname.slice(1)])
      .finally(() => admin.$pool.end());
  });
  await insertChannel(db, {
    name: 'fake',
    baseUrl: `${fakeUrl}/v1`,
    apiKey: null,
    models: ['bench-model'],
    protocols: ['chat', 'responses', 'embeddings'],
    priority: 0,
    weight: 1,
  });
  await insertChannel(db, {
    name: 'fake-big',
    baseUrl: `${bigFakeUrl}/v1`,
    apiKey: null,
    models: ['bench-big'],
    protocols: ['chat'],
    priority: 0,
    weight: 1,
  });
  const key = newRelayKey();
  // Limits and a budget on the key, and a price on the model, so every call takes the whole
  // admission path (requests, tokens, budget reservation) and is settled afterwards.
  for (const model of ['bench-model', 'bench-big'])
    await insertPrice(db, {
      model,
      currency: 'USD',
      inputNanos: 1_000_000_000,
      cachedInputNanos: 1_000_000_000,
      outputNanos: 1_000_000_000,
      effectiveAt: null,
    });
  await insertKey(db, {
    ...NO_KEY_SETTINGS,
    rpm: 100_000_000,
    tpm: 100_000_000,
    budgetNanos: 1e15,
    budgetCurrency: 'USD',
    budgetPeriod: 'total',
    name: 'bench',
    keyHash: hashSecret(key),
    prefix: key.slice(0, 10),
    models: ['*'],
    accountId: null,
    group: 'default',
  });
  // The same calls with a key that has neither, beside it in the sequential phase.
  const plainKey = newRelayKey();
  await insertKey(db, {
    ...NO_KEY_SETTINGS,
    name: 'bench-plain',
    keyHash: hashSecret(plainKey),
    prefix: plainKey.slice(0, 10),
    models: ['*'],
    accountId: null,
    group: 'default',
  });

  const radarPort = await freePort();
  // Every Redis key Radar writes starts with the queue prefix: one of our own, removed at the end.
  const prefix = `bench-relay-${Date.now().toString(36)}`;
  cleanups.push(() => dropRedisKeys(prefix));
  const env = {
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL,
    PORT: String(radarPort),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    QUEUE_PREFIX: prefix,
    RATE_LIMIT_RELAY_KEY_PER_MIN: '0',
  };
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  // Started as `radar up` starts it.
  const nodeFlags = process.env.BENCH_RADAR_FLAGS?.split(' ').filter(Boolean) ?? FRONT_DOOR_NODE_FLAGS;
  const radar = start(process.execPath, [...profile, ...nodeFlags, 'src/cli/radar.js', 'serve'], env);
  start(process.execPath, ['src/cli/radar.js', 'work', '--queues', 'usage'], env);
  await waitForPort(radarPort, radar, 'radar');
  const nginx = await startNginx(Number(new URL(fakeUrl).port), Number(new URL(bigFakeUrl).port));
  const portkey = await startPortkey();

  const radarUrl = `http://127.0.0.1:${radarPort}`;
  const radarHeaders = { authorization: `Bearer ${key}` };
  const targets: Target[] = [
    { name: 'direct', url: fakeUrl, headers: {}, pids: [fake.pid] },
    ...(nginx
      ? [{ name: 'nginx', url: nginx.url, headers: {}, pids: nginx.pids, big: { url: nginx.bigUrl, headers: {} } }]
      : []),
    ...(portkey
      ? [
          {
            name: 'portkey',
            url: portkey.url,
            headers: portkeyHeaders(fakeUrl),
            pids: [portkey.pid],
            big: { url: portkey.url, headers: portkeyHeaders(bigFakeUrl) },
          },
        ]
      : []),
    {
      name: 'radar',
      url: radarUrl,
      headers: radarHeaders,
      pids: [radar.pid!],
      big: { url: radarUrl, headers: radarHeaders },
    },
  ];
  // A relay that cannot stream is measured on plain calls only.
  const streamers: Target[] = [];
  for (const t of targets) {
    const failure = await streamFailure(t);
    if (failure) console.log(`${t.name} cannot relay a stream, left out of the streaming phases: ${failure}`);
    else streamers.push(t);
  }

  console.log(
    `\nrelay benchmark — ${os.cpus().length} CPUs, ${ROUNDS} rounds of ${SECONDS}s per target, concurrency ${CONCURRENCY}, node ${process.version}`,
  );
  const figures = new Map<string, Partial<Figures>>();
  const figure = (target: string, name: keyof Figures, value: number) =>
    figures.set(target, { ...figures.get(target), [name]: value });
  if (PHASES.has('calls')) {
    console.log('\nnon-streaming chat completions (concurrent)');
    console.log('target      req/s    p50 ms   p99 ms   CPU ms/call');
    const measured = await load(targets, CHAT, false, CONCURRENCY, SECONDS, ROUNDS);
    for (const t of targets) {
      const r = summarize(measured.get(t)!);
      figure(t.name, 'callsPerSecond', r.rps);
      console.log(
        `${t.name.padEnd(8)} ${r.rps.toFixed(0).padStart(8)} ${ms(r.p50)} ${ms(r.p99)}   ${ms(r.cpuPerCall)}`,
      );
    }
  }
  // Each target with its figure and whether this run met it.
  const verdicts: string[] = [];
  const verdict = (met: boolean, what: string) => verdicts.push(`${met ? 'met' : 'NOT met'}: ${what}`);
  if (PHASES.has('streams')) {
    console.log('\n200-chunk streams (concurrent; latency = whole stream)');
    console.log('target   streams/s  chunks/s   p50 ms   p99 ms   CPU ms/stream');
    const measured = await load(streamers, STREAM, true, CONCURRENCY, SECONDS, ROUNDS);
    const rps: Record<string, number> = {};
    for (const t of streamers) {
      const r = summarize(measured.get(t)!);
      rps[t.name] = r.rps;
      figure(t.name, 'streamsPerSecond', r.rps);
      figure(t.name, 'cpuPerStream', r.cpuPerCall);
      console.log(
        `${t.name.padEnd(8)} ${r.rps.toFixed(0).padStart(9)} ${(r.rps * 200).toFixed(0).padStart(9)} ${ms(r.p50)} ${ms(r.p99)}   ${ms(r.cpuPerCall)}`,
      );
    }
    const nginxTarget = streamers.find((t) => t.name === 'nginx');
    if (nginxTarget) {
      const radarRounds = measured.get(targets.find((t) => t.name === 'radar')!)!;
      const perRound = measured
        .get(nginxTarget)!
        .map((n, i) => `${((100 * rate(radarRounds[i]!)) / rate(n)).toFixed(0)}%`);
      console.log(`radar vs nginx, round by round: ${perRound.join(' ')}`);
      verdict(
        rps.radar! >= rps.nginx!,
        `radar streams/s at least nginx's (${rps.radar!.toFixed(0)} vs ${rps.nginx!.toFixed(0)}, ${((100 * rps.radar!) / rps.nginx!).toFixed(0)}%)`,
      );
    }
  }
  if (PHASES.has('sequential')) {
    // Radar twice: with the key that has limits and a budget, and with one that has neither,
    // so the run shows what the admission and settling of limits and budgets add.
    const plain: Target = {
      ...targets.find((t) => t.name === 'radar')!,
      name: 'radar, no limits or budget',
      headers: { authorization: `Bearer ${plainKey}` },
    };
    const measured = await sequential([...targets, plain], SEQUENTIAL, ROUNDS);
    console.log(
      `\nsequential non-streaming calls (${SEQUENTIAL} per target on one connection, in ${ROUNDS * (targets.length + 1)} turns each)`,
    );
    console.log(`${'target'.padEnd(28)}   req/s    p50 ms   p99 ms   added p50 ms   CPU ms/call`);
    const direct = measured.get(targets[0]!)!;
    for (const [t, r] of measured) {
      const added = t === targets[0] ? '' : ms(r.p50 - direct.p50);
      if (t !== targets[0] && t !== plain) figure(t.name, 'addedP50', r.p50 - direct.p50);
      const label = t.name === 'radar' ? 'radar, limits and budget' : t.name;
      console.log(
        `${label.padEnd(28)} ${r.rps.toFixed(0).padStart(7)} ${ms(r.p50)} ${ms(r.p99)}   ${added.padStart(8)}     ${ms(r.cpuPerCall)}`,
      );
    }
    const added = figures.get('radar')!.addedP50!;
    const addedPlain = measured.get(plain)!.p50 - direct.p50;
    verdict(
      added < 0.3,
      `radar added p50 < 0.3 ms with limits and a budget on the key (${added.toFixed(3)} ms; ${addedPlain.toFixed(3)} ms with neither)`,
    );
  }
  if (PHASES.has('slow')) await slowPhase(streamers, figure, verdict);
  if (figures.has('radar')) printRatios(figures, verdict);
  if (verdicts.length) console.log(`\ntargets:\n  ${verdicts.join('\n  ')}`);
}

try {
  await main();
} finally {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null ? once(c, 'exit') : null)));
  for (const step of cleanups.reverse()) await step().catch((err) => console.error('cleanup:', err));
}
