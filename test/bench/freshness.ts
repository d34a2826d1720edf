/**
 * `npm run bench:freshness`: how long after its 200 receipt a visit shows in
 * `analytics/overview`, on an idle site and on a site under sustained ingest into the current
 * hour.
 *
 * 1. Starts Radar (`radar serve` + `radar work`, every queue) on a fresh database of the local
 *    PostgreSQL and a fresh key prefix of the local Redis.
 * 2. Marker: a one-visit batch (its own user, no session) at an instant of an hour two days back
 *    that nothing else writes to; from its 200 receipt, `overview` of that hour is polled until
 *    its visits and visitors count the marker. The next marker is posted once the last one
 *    showed, so a site whose rollups fall behind shows a growing delay.
 * 3. Idle: BENCH_IDLE_MARKERS markers with nothing else running.
 * 4. Load: BENCH_LOAD_CLIENTS clients POST BENCH_BATCH-visit batches (users, sessions, channels)
 *    into the current hour back to back for BENCH_LOAD_S seconds, while markers run as above.
 *
 * Prints p50/p95 of the delay per phase, the load phase's delays per stretch of time (is it
 * flat?), the load's ingest rate, and the p50/p95 of the overview requests themselves.
 *
 * Environment: BENCH_IDLE_MARKERS (20), BENCH_LOAD_S (120), BENCH_LOAD_CLIENTS (4),
 * BENCH_BATCH (500), BENCH_POLL_MS (20), BENCH_MARKER_TIMEOUT_S (180), WORKER_CONCURRENCY (8),
 * BENCH_DATABASE_URL, BENCH_REDIS_URL.
 */
import { Agent, request } from 'undici';
import { spawnRadar, type RadarProcess } from '../helpers/processes.ts';
import { envNumber, REDIS_URL } from './env.ts';
import { benchSite, dropBenchSite } from './radar-site.ts';
import { visitBatch } from './visit-batch.ts';

const num = (name: string, fallback: number) => envNumber(name, fallback, 'positive');

const IDLE_MARKERS = num('BENCH_IDLE_MARKERS', 20);
const LOAD_S = num('BENCH_LOAD_S', 120);
const LOAD_CLIENTS = num('BENCH_LOAD_CLIENTS', 4);
const BATCH = num('BENCH_BATCH', 500);
const POLL_MS = num('BENCH_POLL_MS', 20);
const MARKER_TIMEOUT_MS = num('BENCH_MARKER_TIMEOUT_S', 180) * 1000;
const HOUR = 3_600_000;

const log = (msg: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const fmt = (values: readonly number[]) =>
  `p50 ${Math.round(percentile(values, 50))} ms   p95 ${Math.round(percentile(values, 95))} ms   max ${Math.round(Math.max(...values))} ms   (n=${values.length})`;

async function main(): Promise<void> {
  const s = await benchSite();
  const env = {
    DATABASE_URL: s.dbUrl,
    REDIS_URL,
    QUEUE_PREFIX: s.tag,
    PORT: '0',
    // spawnRadar waits for the processes' info lines.
    LOG_LEVEL: 'info',
    INGEST_SYNC_WAIT_MS: '10000',
    RATE_LIMIT_CREDENTIAL_PER_MIN: '0',
    INGEST_QUOTA_RECORDS_PER_MIN: '0',
  };
  const procs: RadarProcess[] = [];
  try {
    const door = await spawnRadar(['serve'], env);
    procs.push(door);
    procs.push(await spawnRadar(['work'], env));
    const base = `http://127.0.0.1:${door.port}/api/v1/sites/${s.siteId}`;
    const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000, headersTimeout: 0, bodyTimeout: 0 });
    const ask = async (method: 'GET' | 'POST', path: string, secret: string, body?: string) => {
      const res = await request(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body,
        dispatcher: agent,
      });
      return { status: res.statusCode, text: await res.body.text() };
    };

    // Markers go to an hour no load touches, read as one whole-hour window (no raw ends).
    const markerHour = Math.floor(Date.now() / HOUR) * HOUR - 48 * HOUR;
    const overviewPath = `/analytics/overview?${new URLSearchParams({
      from: new Date(markerHour).toISOString(),
      to: new Date(markerHour + HOUR).toISOString(),
      tz: 'UTC',
    })}`;
    const viewMs: number[] = [];
    let markers = 0;
    /** Posts the next marker; resolves with ms from its 200 to the first overview counting it. */
    const marker = async (): Promise<number> => {
      const n = ++markers;
      const id = `marker_${n}`;
      const body = JSON.stringify({
        schema_version: 'events.v1',
        batch_id: id,
        records: [
          {
            event_id: id,
            event_type: 'visit',
            source: 'client_sdk',
            occurred_at: new Date(markerHour + n * 1000).toISOString(),
            external_user_id: `marker_user_${n}`,
          },
        ],
      });
      const r = await ask('POST', '/ingest/events', s.secret, body);
      if (r.status !== 200) throw new Error(`marker ${n}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
      const received = performance.now();
      for (;;) {
        const t0 = performance.now();
        const v = await ask('GET', overviewPath, s.readSecret);
        viewMs.push(performance.now() - t0);
        if (v.status !== 200) throw new Error(`overview: HTTP ${v.status} ${v.text.slice(0, 300)}`);
        const { data } = JSON.parse(v.text) as { data: { visits: number; visitors: number } };
        if (data.visits === n && data.visitors === n) return performance.now() - received;
        if (data.visits > n || data.visitors > n)
          throw new Error(`overview counts more markers than posted: ${v.text}`);
        if (performance.now() - received > MARKER_TIMEOUT_MS) return Number.POSITIVE_INFINITY;
        await new Promise((done) => setTimeout(done, POLL_MS));
      }
    };

    log(`idle: ${IDLE_MARKERS} markers`);
    const idle: number[] = [];
    for (let i = 0; i < IDLE_MARKERS; i++) idle.push(await marker());
    const idleViews = viewMs.splice(0);

    log(`load: ${LOAD_CLIENTS} clients × ${BATCH}-visit batches into the current hour for ${LOAD_S} s`);
    const start = performance.now();
    const stopAt = start + LOAD_S * 1000;
    let applied = 0;
    let failed = 0;
    const clients = Array.from({ length: LOAD_CLIENTS }, async (_, c) => {
      for (let seq = 0; performance.now() < stopAt; seq++) {
        const r = await ask('POST', '/ingest/events', s.secret, visitBatch(`load_${c}_${seq}`, BATCH));
        if (r.status === 200) applied += BATCH;
        else if (++failed <= 3) console.error(`load: HTTP ${r.status} ${r.text.slice(0, 300)}`);
      }
    });
    const loaded: { at: number; delay: number }[] = [];
    while (performance.now() < stopAt) {
      const at = (performance.now() - start) / 1000;
      const delay = await marker();
      loaded.push({ at, delay });
      log(`  marker at ${at.toFixed(0)} s: visible ${Math.round(delay)} ms after its receipt`);
      if (!Number.isFinite(delay)) break;
    }
    await Promise.all(clients);
    const elapsed = (performance.now() - start) / 1000;
    const loadViews = viewMs.splice(0);
    await agent.close();
    // The rollup passes during the load, from the worker's log (workers/rollup.ts).
    const passes = procs[1]!.logs.filter((l) => l.msg === 'analytics rollup done' && typeof l.ms === 'number');

    const stretch = Math.max(10, Math.ceil(LOAD_S / 6));
    console.log('');
    console.log('delay from a marker batch’s 200 receipt to overview counting it (visits and visitors)');
    console.log(`  idle    ${fmt(idle)}`);
    console.log(`  load    ${fmt(loaded.map((l) => l.delay))}`);
    for (let from = 0; from < LOAD_S; from += stretch) {
      const part = loaded.filter((l) => l.at >= from && l.at < from + stretch).map((l) => l.delay);
      if (part.length) console.log(`    ${String(from).padStart(4)}–${from + stretch} s   ${fmt(part)}`);
    }
    console.log(
      `load: ${Math.round(applied / elapsed).toLocaleString('en-US')} records/s answered 200 (${LOAD_CLIENTS} clients, ${BATCH}-visit batches, ${elapsed.toFixed(0)} s; ${failed} other answers)`,
    );
    console.log(`overview request  idle ${fmt(idleViews)}`);
    console.log(`                  load ${fmt(loadViews)}`);
    console.log(`rollup passes     ${fmt(passes.map((l) => l.ms as number))}`);
    if (failed || loaded.some((l) => !Number.isFinite(l.delay))) process.exitCode = 1;
  } finally {
    await dropBenchSite(s, procs);
  }
}

await main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
