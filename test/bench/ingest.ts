/**
 * `npm run bench:ingest`: Radar's end-to-end ingest rate beside PostgreSQL's raw COPY rate,
 * measured in the same run on the same machine, then a burst.
 *
 * 1. Starts Radar (`radar serve` + `radar work --queues ingest` child processes) on a fresh
 *    database of the local PostgreSQL and a fresh key prefix of the local Redis.
 * 2. Sustained: BENCH_CLIENTS clients each POST batches of BENCH_BATCH realistic events back to
 *    back for BENCH_SUSTAINED_S seconds. Counted: records whose batch was answered 200 — the
 *    synchronous answer comes after the worker's commit — then checked against the rows.
 * 3. Raw limits: the same number of connections COPY batches of the same rows (same columns,
 *    same size) into the same table for the same time (Radar's own indexes and triggers
 *    included); and the strictest anchor, one COPY stream of the same rows into a table with
 *    only the primary key (the ratio issue 21 sets a target for).
 * 4. Burst: BENCH_BURST_FACTOR × the sustained rate for BENCH_BURST_S seconds, sent open-loop
 *    (on a timetable, not waiting for answers), then waits for every batch to be applied and
 *    counts errors and lost records.
 *
 * Environment: BENCH_SUSTAINED_S (20), BENCH_BURST_S (10), BENCH_BURST_FACTOR (10),
 * BENCH_SUSTAINED_RATE (records/s the burst multiplies; default: the measured rate),
 * BENCH_CLIENTS (8), BENCH_BATCH (500), BENCH_WORKER_PROCESSES (1), WORKER_CONCURRENCY (8),
 * BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres), BENCH_REDIS_URL.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Agent, request } from 'undici';
import { createDb, type Db } from '../../src/db/connection.ts';
import { sha256 } from '../../src/ingest/canonical.ts';
import { BATCH_SCHEMAS } from '../../src/ingest/schemas.ts';
import { RECORD_TABLES } from '../../src/ingest/tables.ts';
import { spawnRadar, type RadarProcess } from '../helpers/processes.ts';
import { envNumber, REDIS_URL } from './env.ts';
import { benchSite, dropBenchSite } from './radar-site.ts';

const num = (name: string, fallback: number) => envNumber(name, fallback, 'positive');

const SUSTAINED_S = num('BENCH_SUSTAINED_S', 20);
const BURST_S = num('BENCH_BURST_S', 10);
const BURST_FACTOR = num('BENCH_BURST_FACTOR', 10);
const CLIENTS = num('BENCH_CLIENTS', 8);
const BATCH = num('BENCH_BATCH', 500);
const WORKER_PROCESSES = num('BENCH_WORKER_PROCESSES', 1);
const DRAIN_TIMEOUT_MS = 15 * 60_000;

const EVENT_TYPES = [
  'visit',
  'visit',
  'visit',
  'visit',
  'registration_completed',
  'activation_completed',
  'usage',
  'usage',
  'workflow_completed',
  'order_paid',
] as const;
const CHANNELS = ['search', 'social', 'email', 'referral', 'chatgpt.com', 'perplexity.ai', 'direct'];
const DEVICES = ['desktop', 'mobile', 'tablet', 'other'];
const COUNTRIES = ['CN', 'US', 'DE', 'JP', 'BR', 'IN', 'FR'];
const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)]!;

/** One realistic event as a client would send it: local-time offset, optional fields, properties. */
function event(id: string, nowMs: number): Record<string, unknown> {
  const at = `${new Date(nowMs - Math.floor(Math.random() * 86_400_000) + 8 * 3_600_000).toISOString().slice(0, 23)}+08:00`;
  const type = pick(EVENT_TYPES);
  const user = `user_${Math.floor(Math.random() * 50_000)}`;
  const e: Record<string, unknown> = {
    event_id: id,
    event_type: type,
    source: type === 'visit' ? 'client_sdk' : 'server_sdk',
    occurred_at: at,
    external_user_id: user,
    session_id: `sess_${user}_${Math.floor(nowMs / 1800_000)}`,
    properties: { channel: pick(CHANNELS), device: pick(DEVICES), country: pick(COUNTRIES) },
  };
  if (Math.random() < 0.3) e.campaign_id = `cmp_${Math.floor(Math.random() * 40)}`;
  if (type === 'usage') (e.properties as Record<string, unknown>).quantity = Math.floor(Math.random() * 100);
  if (type === 'order_paid') (e.properties as Record<string, unknown>).plan_id = pick(['starter', 'pro', 'team']);
  return e;
}

const SLOT = '@@';

/**
 * A batch body whose batch id and event ids hold a slot; `fill` makes a fresh batch of it.
 * Clients (Radar's and COPY's alike) fill a few prepared templates instead of building every
 * batch, so the machine's CPU goes to what is measured rather than to the load generator.
 */
function template(): string {
  const now = Date.now();
  const records = Array.from({ length: BATCH }, (_, i) => event(`${SLOT}_${i}`, now));
  return JSON.stringify({ schema_version: 'events.v1', batch_id: SLOT, records });
}

const fill = (tmpl: string, id: string, slot = SLOT) => tmpl.replaceAll(slot, id);
const templates = (n: number) => Array.from({ length: n }, template);

function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) a process has used so far; 0 when it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/**
 * Where the machine's CPU went during a phase, by role: Radar's processes, the PostgreSQL
 * backends serving this database (by application_name), and this process (the load).
 */
async function cpuSample(db: Db, dbName: string, pids: Record<string, number>): Promise<Record<string, number>> {
  const backends = await db.any<{ pid: number; application_name: string }>(
    'SELECT pid, application_name FROM pg_stat_activity WHERE datname = $1',
    [dbName],
  );
  const out: Record<string, number> = {};
  for (const [role, pid] of Object.entries(pids)) out[role] = cpuSeconds(pid);
  for (const b of backends) {
    const role = `postgres (${b.application_name || 'other'})`;
    out[role] = (out[role] ?? 0) + cpuSeconds(b.pid);
  }
  return out;
}

function cpuReport(before: Record<string, number>, afterwards: Record<string, number>, records: number): string {
  return Object.keys(afterwards)
    .map((role) => [role, ((afterwards[role]! - (before[role] ?? 0)) * 1e6) / records] as const)
    .filter(([, us]) => us > 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([role, us]) => `${role} ${us.toFixed(0)}`)
    .join(', ');
}

async function main(): Promise<void> {
  const s = await benchSite();
  // Limits off: the bench measures capacity, and the burst is meant to exceed any sane quota.
  const env = {
    DATABASE_URL: s.dbUrl,
    REDIS_URL,
    QUEUE_PREFIX: s.tag,
    PORT: '0',
    LOG_LEVEL: 'warn',
    INGEST_SYNC_WAIT_MS: '10000',
    RATE_LIMIT_CREDENTIAL_PER_MIN: '0',
    INGEST_QUOTA_RECORDS_PER_MIN: '0',
  };
  const procs: RadarProcess[] = [];
  try {
    const door = await spawnRadar(['serve'], { ...env, LOG_LEVEL: 'info' });
    procs.push(door);
    for (let i = 0; i < WORKER_PROCESSES; i++)
      procs.push(await spawnRadar(['work', '--queues', 'ingest'], { ...env, LOG_LEVEL: 'info' }));
    const base = `http://127.0.0.1:${door.port}`;
    const agent = new Agent({
      connections: 512,
      pipelining: 1,
      keepAliveTimeout: 60_000,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    const headers = { authorization: `Bearer ${s.secret}`, 'content-type': 'application/json' };
    const post = async (body: string) => {
      const res = await request(`${base}/api/v1/sites/${s.siteId}/ingest/events`, {
        method: 'POST',
        headers,
        body,
        dispatcher: agent,
      });
      const text = await res.body.text();
      return { status: res.statusCode, text };
    };

    console.log(
      `radar: 1 front door + ${WORKER_PROCESSES} worker process(es); ${CLIENTS} clients; ${BATCH} events per batch`,
    );
    // Warm-up, so JIT and pools are not part of the measurement.
    const warm = templates(1)[0]!;
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => post(fill(warm, `w_${c}`))));

    const db = createDb({ url: s.dbUrl, poolSize: CLIENTS + 1, applicationName: 'radar-bench' });
    const dbName = new URL(s.dbUrl).pathname.slice(1);
    const pids = {
      'front door': door.proc.pid!,
      ...Object.fromEntries(procs.slice(1).map((p, i) => [`worker ${i + 1}`, p.proc.pid!])),
      'bench clients': process.pid,
    };

    // --- Sustained, closed loop ---
    const cpuBefore = await cpuSample(db, dbName, pids);
    const latencies: number[] = [];
    let ok = 0;
    let other = 0;
    const start = performance.now();
    const stopAt = start + SUSTAINED_S * 1000;
    const sustainedTemplates = templates(8);
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let seq = 0; performance.now() < stopAt; seq++) {
          const body = fill(sustainedTemplates[(c + seq) % sustainedTemplates.length]!, `s_${c}_${seq}`);
          const t0 = performance.now();
          const r = await post(body);
          latencies.push(performance.now() - t0);
          if (r.status === 200) ok += BATCH;
          else {
            other++;
            if (other <= 3) console.error(`sustained: HTTP ${r.status} ${r.text.slice(0, 300)}`);
          }
        }
      }),
    );
    const elapsed = (performance.now() - start) / 1000;
    const cpuAfter = await cpuSample(db, dbName, pids);
    latencies.sort((a, b) => a - b);
    const e2eRate = ok / elapsed;

    const stored = (
      await db.one<{ n: number }>(
        "SELECT count(*)::int AS n FROM ingest_events WHERE site_id = $1 AND event_id LIKE 's\\_%'",
        [s.siteId],
      )
    ).n;

    // --- Raw limit: COPY of the same rows into the same table ---
    const copyCpu: Record<'before' | 'after', Record<string, number>> = { before: {}, after: {} };
    const copyRate = await copyBaseline(s.dbUrl, async (phase) => {
      copyCpu[phase] = await cpuSample(db, dbName, { 'bench clients': process.pid });
    });

    // --- The strictest anchor: one COPY stream into a primary-key-only table ---
    const bare = await bareCopyLimit(s.dbUrl, Math.min(1_000_000, Math.max(500_000, ok)));

    // --- Burst, open loop ---
    const sustainedRate = num('BENCH_SUSTAINED_RATE', e2eRate);
    const burstBatches = Math.max(1, Math.round((sustainedRate * BURST_FACTOR * BURST_S) / BATCH));
    process.stdout.write(`burst: preparing ${burstBatches} batches… `);
    const burstTemplates = templates(16);
    const bodies = Array.from({ length: burstBatches }, (_, k) =>
      fill(burstTemplates[k % burstTemplates.length]!, `b_${k}`),
    );
    console.log('sending');
    const spacingMs = (BURST_S * 1000) / burstBatches;
    const burstStart = performance.now();
    const statuses = new Map<string, number>();
    const acceptedIds: string[] = [];
    const burstLatencies: number[] = [];
    await Promise.all(
      bodies.map(async (body, k) => {
        const due = burstStart + k * spacingMs;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const t0 = performance.now();
        let key: string;
        try {
          const r = await post(body);
          key = String(r.status);
          if (r.status === 200 || r.status === 202) acceptedIds.push(`b_${k}`);
          else if (statuses.get(key) === undefined) console.error(`burst: HTTP ${r.status} ${r.text.slice(0, 300)}`);
        } catch (err) {
          key = `error ${(err as Error).message}`;
        }
        burstLatencies.push(performance.now() - t0);
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }),
    );
    const answeredIn = (performance.now() - burstStart) / 1000;
    bodies.length = 0;
    const drainStart = performance.now();
    for (;;) {
      const { n } = await db.one<{ n: number }>(
        "SELECT count(*)::int AS n FROM ingest_batches WHERE site_id = $1 AND status = 'queued'",
        [s.siteId],
      );
      if (n === 0) break;
      if (performance.now() - drainStart > DRAIN_TIMEOUT_MS)
        throw new Error(`${n} batches still queued after ${DRAIN_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const burstDoneS = (performance.now() - burstStart) / 1000;
    // Only batches answered 200 or 202 were promised; count their rows, and nothing else.
    const accepted = acceptedIds.length * BATCH;
    const burstStored = (
      await db.one<{ n: number }>(
        'SELECT count(*)::int AS n FROM ingest_events WHERE site_id = $1 AND batch_id = ANY($2)',
        [s.siteId, acceptedIds],
      )
    ).n;
    const rejected = (
      await db.one<{ n: number }>(
        "SELECT count(*)::int AS n FROM ingest_batches WHERE site_id = $1 AND status = 'rejected'",
        [s.siteId],
      )
    ).n;
    await db.$pool.end();
    await agent.close();
    burstLatencies.sort((a, b) => a - b);

    const f = (n: number) => Math.round(n).toLocaleString('en-US');
    const errors = [...statuses].filter(([k]) => k !== '200' && k !== '202').reduce((a, [, v]) => a + v, 0);
    console.log('');
    console.log(`sustained  ${SUSTAINED_S}s, ${CLIENTS} clients × ${BATCH}-event batches`);
    console.log(
      `  end-to-end applied   ${f(e2eRate)} records/s  (${f(ok)} records answered 200; ${other} other answers; ${f(stored)} rows stored${stored === ok ? ', all present' : ' — MISMATCH'})`,
    );
    console.log(
      `  batch latency        p50 ${percentile(latencies, 50).toFixed(1)} ms   p99 ${percentile(latencies, 99).toFixed(1)} ms`,
    );
    console.log(`  CPU µs per record    ${cpuReport(cpuBefore, cpuAfter, ok)}`);
    console.log(
      `  raw COPY limit       ${f(copyRate.rate)} records/s  (${CLIENTS} connections × ${BATCH}-row COPY into ingest_events)`,
    );
    console.log(`  CPU µs per record    ${cpuReport(copyCpu.before, copyCpu.after, copyRate.rows)}`);
    console.log(`  end-to-end / COPY    ${((100 * e2eRate) / copyRate.rate).toFixed(0)}%`);
    console.log(
      `  bare COPY limit      ${f(bare.rate)} records/s  (one COPY stream of ${f(bare.rows)} rows into a primary-key-only table)`,
    );
    console.log(`  end-to-end / bare    ${(e2eRate / bare.rate).toFixed(2)}  (target ≥ 0.35)`);
    console.log(
      `burst      ${BURST_FACTOR}× ${f(sustainedRate)} records/s = ${f(sustainedRate * BURST_FACTOR)} records/s for ${BURST_S}s (${burstBatches} batches, open loop)`,
    );
    console.log(
      `  answers              ${[...statuses].map(([k, v]) => `${k}: ${v}`).join(', ')}  — errors: ${errors}`,
    );
    console.log(
      `  answer latency       p50 ${percentile(burstLatencies, 50).toFixed(0)} ms   p99 ${percentile(burstLatencies, 99).toFixed(0)} ms   all answered after ${answeredIn.toFixed(1)} s`,
    );
    console.log(
      `  applied              ${f(burstStored)} of ${f(accepted)} accepted records (lost: ${accepted - burstStored}, rejected batches: ${rejected}); backlog drained ${burstDoneS.toFixed(1)} s after the burst began`,
    );
    if (errors || accepted !== burstStored || stored !== ok) process.exitCode = 1;
  } finally {
    await dropBenchSite(s, procs);
  }
}

/** The rows a worker would write for the events of a batch, as COPY csv, with the batch id a slot. */
function eventRows() {
  const table = RECORD_TABLES.events;
  const columns = table.columnSet.columns.map((c) => `"${c.name}"`).join(', ');
  const siteId = randomUUID();
  const receivedAt = new Date();
  const csv = (v: unknown): string => {
    if (v === null || v === undefined) return '';
    const str = typeof v === 'object' ? JSON.stringify(v) : String(v);
    return /[",\n\r]/.test(str) ? `"${str.replace(/"/g, '""')}"` : str;
  };
  // Validated, canonical and digested as the worker does, under a slot that is a valid
  // identifier, filled per COPY like the bodies are.
  const slot = 'zzslotzz';
  const batch = (): string => {
    const parsed = BATCH_SCHEMAS.events.parse(JSON.parse(fill(template(), slot)));
    let out = '';
    for (const r of parsed.records) {
      const row = table.toRow(r, { siteId, batchId: slot, receivedAt, digest: sha256(JSON.stringify(r)) });
      out += `${table.columnSet.columns.map((c) => csv(row[c.name])).join(',')}\n`;
    }
    return out;
  };
  return { table: table.table, columns, slot, batch };
}

/**
 * The limit for storing the same events durably: one `COPY … FROM STDIN` stream of the same rows
 * into a table with only `ingest_events`' primary key (no secondary index, no trigger). Rows are
 * prepared before the clock starts.
 */
async function bareCopyLimit(dbUrl: string, total: number): Promise<{ rate: number; rows: number }> {
  const { table, columns, slot, batch } = eventRows();
  const c = new pg.Client({ connectionString: dbUrl, application_name: 'radar-bench-copy' });
  await c.connect();
  try {
    const pk = await c.query<{ name: string }>(
      `SELECT a.attname AS name FROM pg_index i
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
        WHERE i.indrelid = $1::regclass AND i.indisprimary`,
      [table],
    );
    await c.query(`CREATE TABLE bench_bare (LIKE ${table} INCLUDING DEFAULTS)`);
    await c.query(`ALTER TABLE bench_bare ADD PRIMARY KEY (${pk.rows.map((r) => `"${r.name}"`).join(', ')})`);
    const ready = Array.from({ length: 4 }, batch);
    const batches = Math.ceil(total / BATCH);
    const texts = Array.from({ length: batches }, (_, k) => fill(ready[k % ready.length]!, `bare_${k}`, slot));
    const start = performance.now();
    await pipeline(
      Readable.from(texts),
      c.query(copyFrom(`COPY bench_bare (${columns}) FROM STDIN WITH (FORMAT csv)`)),
    );
    const rate = (batches * BATCH) / ((performance.now() - start) / 1000);
    return { rate, rows: batches * BATCH };
  } finally {
    await c.query('DROP TABLE IF EXISTS bench_bare');
    await c.end();
  }
}

/** COPY of BATCH-row batches of event rows into `ingest_events`, CLIENTS connections in parallel, for SUSTAINED_S. */
async function copyBaseline(
  dbUrl: string,
  sample: (phase: 'before' | 'after') => Promise<void>,
): Promise<{ rate: number; rows: number }> {
  const { table, columns, slot: copySlot, batch } = eventRows();
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const c = new pg.Client({ connectionString: dbUrl, application_name: 'radar-bench-copy' });
      c.on('error', (err) => console.error(`copy connection: ${err.message}`));
      await c.connect();
      return c;
    }),
  );
  let rows = 0;
  const prepared = clients.map(() => Array.from({ length: 4 }, batch));
  await sample('before');
  const start = performance.now();
  const stopAt = start + SUSTAINED_S * 1000;
  await Promise.all(
    clients.map(async (c, i) => {
      // Rows are prepared ahead of the clock, as a COPY-based loader would have them ready.
      const ready = prepared[i]!;
      for (let seq = 0; performance.now() < stopAt; seq++) {
        const text = fill(ready[seq % ready.length]!, `c_${i}_${seq}`, copySlot);
        await pipeline(
          Readable.from([text]),
          c.query(copyFrom(`COPY ${table} (${columns}) FROM STDIN WITH (FORMAT csv)`)),
        );
        rows += BATCH;
      }
    }),
  );
  const rate = rows / ((performance.now() - start) / 1000);
  await sample('after');
  await Promise.all(clients.map((c) => c.end()));
  return { rate, rows };
}

await main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
