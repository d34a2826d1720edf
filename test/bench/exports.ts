/**
 * `npm run bench:exports`: an export of many events, and the memory it takes.
 *
 * 1. A fresh database on the local PostgreSQL with one site holding BENCH_EXPORT_ROWS events
 *    (default 1,000,000), loaded with set-based SQL straight into ingest_events.
 * 2. `radar serve` and `radar work --queues exports` as child processes (as deployed); their
 *    resident memory is sampled from /proc every 100 ms.
 * 3. An export of the first tenth of the events (a `to` window), then of all of them, as CSV
 *    (BENCH_EXPORT_FORMAT=ndjson for NDJSON): rows/s to make the file and the worker's peak
 *    RSS; a full-speed download (MB/s, front door peak RSS); and a slow client reading
 *    BENCH_SLOW_KBPS (default 2048) KiB/s for 10 s (the front door's RSS must stay flat).
 * 4. Drops the database and stops the processes.
 *
 * Same-run ratios matter more than absolute figures: peak RSS of the full export vs the tenth.
 */
import { readFileSync } from 'node:fs';
import { eventually } from '../helpers/eventually.ts';
import type { RadarProcess } from '../helpers/processes.ts';
import { benchCluster } from './cluster.ts';
import { envNumber } from './env.ts';

const ROWS = envNumber('BENCH_EXPORT_ROWS', 1_000_000, 'count');
const FORMAT = process.env.BENCH_EXPORT_FORMAT === 'ndjson' ? 'ndjson' : 'csv';
const SLOW_KBPS = envNumber('BENCH_SLOW_KBPS', 2048, 'positive');
const LOAD_CHUNK = 1_000_000;
const START = Date.parse('2026-01-01T00:00:00Z') / 1000;

const log = (msg: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);
const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;

/** The largest resident set seen of each process between start() and stop(). */
function rssSampler(procs: Record<string, RadarProcess>) {
  const peak: Record<string, number> = {};
  const rss = (pid: number) => {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  };
  const sample = () => {
    for (const [name, p] of Object.entries(procs)) peak[name] = Math.max(peak[name] ?? 0, rss(p.proc.pid!));
  };
  let timer: NodeJS.Timeout | null = null;
  return {
    start() {
      for (const k of Object.keys(peak)) delete peak[k];
      sample();
      timer = setInterval(sample, 100);
    },
    stop() {
      if (timer) clearInterval(timer);
      sample();
      return { ...peak };
    },
  };
}

async function main() {
  const c = await benchCluster('exports', 'exports');
  const { db, base, siteId } = c;
  try {
    let t0 = performance.now();
    for (let lo = 0; lo < ROWS; lo += LOAD_CHUNK) {
      const hi = Math.min(ROWS, lo + LOAD_CHUNK) - 1;
      await db.none(
        `INSERT INTO ingest_events (site_id, event_id, revision, source, occurred_at, event_type, external_user_id,
           session_id, channel, record, content_digest, batch_id, received_at)
         SELECT $(site), id, 1, 'import', t, 'visit', 'u' || i % 5000, 's' || i % 20000, 'search',
           jsonb_build_object('event_id', id, 'event_type', 'visit', 'revision', 1, 'source', 'import',
             'occurred_at', to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
             'external_user_id', 'u' || i % 5000, 'session_id', 's' || i % 20000,
             'properties', jsonb_build_object('channel', 'search', 'device', 'desktop', 'country', 'DE')),
           '\\x00', 'bench', now()
         FROM (SELECT i, 'evt_' || lpad(i::text, 9, '0') AS id, to_timestamp($(start) + i * 2) AS t
               FROM generate_series($(lo)::bigint, $(hi)::bigint) AS i) x`,
        { site: siteId, start: START, lo, hi },
      );
    }
    await db.none('ANALYZE ingest_events');
    log(`loaded ${ROWS.toLocaleString()} events in ${Math.round(performance.now() - t0)} ms`);
    const headers = { cookie: `__Host-radar_session=${c.session}`, origin: base, 'content-type': 'application/json' };
    const sampler = rssSampler({ 'front door': c.door, worker: c.worker });

    const exportOf = async (label: string, window: { to?: string }) => {
      sampler.start();
      t0 = performance.now();
      const created = await fetch(`${base}/api/v1/sites/${siteId}/exports`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ kind: 'records', resource: 'events', format: FORMAT, ...window }),
      }).then((r) => r.json() as Promise<{ id: string }>);
      const done = await eventually(
        async () => {
          const e = (await fetch(`${base}/api/v1/sites/${siteId}/exports/${created.id}`, { headers }).then((r) =>
            r.json(),
          )) as { status: string; rowsDone: number; bytes: number; downloadUrl: string };
          if (e.status === 'failed') throw new Error(JSON.stringify(e));
          return e.status === 'completed' ? e : undefined;
        },
        3_600_000,
        `${label} export`,
      );
      const made = performance.now() - t0;
      const makePeak = sampler.stop();
      log(
        `${label}: ${done.rowsDone.toLocaleString()} rows, ${mib(done.bytes)} ${FORMAT} made in ${Math.round(made)} ms ` +
          `(${Math.round(done.rowsDone / (made / 1000)).toLocaleString()} rows/s); worker peak RSS ${mib(makePeak.worker!)}`,
      );

      sampler.start();
      t0 = performance.now();
      const res = await fetch(base + done.downloadUrl, { headers });
      let received = 0;
      for await (const piece of res.body!) received += (piece as Uint8Array).length;
      const took = performance.now() - t0;
      const fastPeak = sampler.stop();
      if (received !== done.bytes) throw new Error(`downloaded ${received} of ${done.bytes} bytes`);
      log(
        `${label}: downloaded ${mib(received)} in ${Math.round(took)} ms (${(received / 1048576 / (took / 1000)).toFixed(1)} MiB/s); ` +
          `front door peak RSS ${mib(fastPeak['front door']!)}`,
      );
      return { makePeak, fastPeak, url: done.downloadUrl, bytes: done.bytes };
    };

    const tenth = await exportOf('tenth', { to: new Date((START + Math.floor(ROWS / 10) * 2) * 1000).toISOString() });
    const full = await exportOf('full', {});

    // A client reading slowly: the front door must not buffer the file for it.
    sampler.start();
    const slow = await fetch(base + full.url, { headers });
    const reader = slow.body!.getReader();
    const until = Date.now() + 10_000;
    let got = 0;
    while (Date.now() < until) {
      const { value, done } = await reader.read();
      if (done) break;
      got += value.length;
      await new Promise((r) => setTimeout(r, (value.length / (SLOW_KBPS * 1024)) * 1000));
    }
    await reader.cancel();
    const slowPeak = sampler.stop();
    log(
      `slow client (${SLOW_KBPS} KiB/s for 10 s): read ${mib(got)} of ${mib(full.bytes)}; front door peak RSS ${mib(slowPeak['front door']!)}`,
    );
    log(
      `full / tenth peak RSS: worker ${(full.makePeak.worker! / tenth.makePeak.worker!).toFixed(2)}×, ` +
        `front door (download) ${(full.fastPeak['front door']! / tenth.fastPeak['front door']!).toFixed(2)}×`,
    );
  } finally {
    await c.close();
  }
}

await main();
