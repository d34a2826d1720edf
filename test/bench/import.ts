/**
 * `npm run bench:import`: `radar import` of a BENCH_IMPORT_ROWS-row CSV of events (default
 * 1,000,000) into `radar serve` + `radar work --queues ingest` on a fresh database, as a user
 * runs it; prints the importer's own summary (records/s), then the same command again — every
 * batch a replay, nothing stored twice — as a resume would run it.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { RADAR } from '../helpers/cli.ts';
import { insertSiteWithIngestKey } from '../helpers/fixtures.ts';
import { benchCluster } from './cluster.ts';
import { envNumber } from './env.ts';

const ROWS = envNumber('BENCH_IMPORT_ROWS', 1_000_000, 'count');
const log = (msg: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);

async function writeCsv(file: string): Promise<void> {
  const out = createWriteStream(file);
  const write = async (s: string) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  await write('event_id,event_type,occurred_at,external_user_id,session_id,properties.channel,properties.device\n');
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < ROWS; i++) {
    const t = new Date(start + i * 2000).toISOString();
    await write(`evt_${i},visit,${t},u_${i % 5000},s_${i % 20000},search,desktop\n`);
  }
  out.end();
  await once(out, 'close');
}

function runImport(env: Record<string, string>, args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RADAR, 'import', ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`import exited ${code}`)),
    );
  });
}

async function main() {
  const c = await benchCluster('import', 'ingest');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'radar-bench-import-'));
  try {
    const { siteId, ingestKey } = await insertSiteWithIngestKey(c.db);
    const file = path.join(dir, 'events.csv');
    await writeCsv(file);
    log(`wrote ${ROWS.toLocaleString()} rows to ${file}`);
    const env = { RADAR_INGEST_KEY: ingestKey, RADAR_URL: c.base };
    const args = ['--site', siteId, '--resource', 'events', file];
    const first = await runImport(env, args);
    log(`import: ${JSON.stringify(first)}`);
    const again = await runImport(env, args);
    log(`again (every batch a replay): ${JSON.stringify(again)}`);
    const { n } = await c.db.one('SELECT count(*)::int AS n FROM ingest_events WHERE site_id = $1', [siteId]);
    log(`stored ${n.toLocaleString()} events for ${ROWS.toLocaleString()} rows`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await c.close();
  }
}

await main();
