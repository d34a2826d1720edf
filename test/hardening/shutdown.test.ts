import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { exited, radarDaemon, waitForHttp } from '../helpers/cli.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertSiteWithIngestKey } from '../helpers/fixtures.ts';
import { assertAppliedOnce, ingestLoad, visitBatches } from '../helpers/ingest-load.ts';
import { freePort } from '../helpers/ports.ts';
import { testServices } from '../helpers/services.ts';

/**
 * Issue #7: SIGTERM to `radar up` while clients push batches. The front door answers what it
 * has started, the worker finishes or hands back its jobs, everything exits 0 — and once Radar
 * is up again, every batch it acknowledged is applied, once.
 */

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

test('graceful shutdown of `radar up` under ingest load loses nothing it acknowledged', async () => {
  const services = await testServices();
  cleanups.push(() => services.cleanup());
  const { siteId, ingestKey } = await insertSiteWithIngestKey(services.db);
  const port = await freePort();
  const env = {
    DATABASE_URL: services.config.DATABASE_URL,
    REDIS_URL: services.config.REDIS_URL,
    QUEUE_PREFIX: services.config.QUEUE_PREFIX,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    INGEST_SYNC_WAIT_MS: '2000',
    SHUTDOWN_TIMEOUT_MS: '10000',
  };
  const base = `http://127.0.0.1:${port}`;
  const up = () => {
    const child = radarDaemon(['up'], env);
    cleanups.push(async () => child.kill('SIGKILL'));
    // The tail of both streams (pino logs to stdout), to say what went wrong if anything did.
    let output = '';
    for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (d) => (output = (output + d).slice(-8000)));
    return { child, output: () => output };
  };

  const first = up();
  await waitForHttp(`${base}/readyz`, 30_000);
  const load = ingestLoad({
    base,
    siteId,
    ingestKey,
    clients: 4,
    next: visitBatches('shutdown', 200),
    timeoutMs: 20_000,
  });
  // Under load: some batches acknowledged, however slow the machine.
  await eventually(() => (load.acknowledged.size > 3 ? true : undefined), 60_000, 'batches acknowledged under load');
  first.child.kill('SIGTERM');
  const { code } = await exited(first.child);
  await load.stop();
  assert.equal(code, 0, first.output());

  // Every answer was an acknowledgment or a refused connection once the listener closed:
  // nothing half-answered, no 5xx.
  const bad = load.answers.filter(
    (a) => a.status !== 200 && a.status !== 202 && a.status !== 'network' && a.status !== 503,
  );
  assert.deepEqual(bad, [], first.output());
  assert.ok(
    load.answers.some((a) => a.status === 'network'),
    'clients met the closed listener',
  );

  // A batch whose worker was stopped before applying it was handed back, not dropped.
  up();
  await waitForHttp(`${base}/readyz`, 30_000);
  await assertAppliedOnce(services.db, siteId, load.acknowledged.values(), 60_000);
});
