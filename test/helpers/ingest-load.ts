import assert from 'node:assert/strict';
import type { Db } from '../../src/db/connection.ts';

/** What the front door answered one POST of a batch (or how the call failed). */
export interface LoadAnswer {
  batchId: string;
  /** HTTP status, or `timeout` when no answer came in time, `network` when the connection failed. */
  status: number | 'timeout' | 'network';
  ms: number;
  retryAfter: string | null;
  contentType: string | null;
  code: string | null;
}

export interface LoadOptions {
  /** Base URL of the front door. */
  base: string;
  siteId: string;
  ingestKey: string;
  /** Batch ids are `<prefix>-<client>-<n>`. */
  prefix: string;
  clients: number;
  recordsPerBatch: number;
  /** An answer slower than this counts as a hang. */
  timeoutMs: number;
  /** Events of a batch; by default distinct visits in one hour. */
  records?: (batchId: string, count: number) => Record<string, unknown>[];
}

export interface IngestLoad {
  readonly answers: readonly LoadAnswer[];
  /** Batch ids answered 200 or 202 at least once, with their record counts. */
  readonly acknowledged: ReadonlyMap<string, number>;
  /** Lets every client finish its current call and stop. */
  stop(): Promise<void>;
}

function visits(batchId: string, count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({
    event_id: `${batchId}_${i}`,
    event_type: 'visit',
    source: 'site_backend',
    occurred_at: '2026-11-20T08:00:00+08:00',
    external_user_id: `u_${i % 50}`,
    session_id: `${batchId}_s${i % 10}`,
  }));
}

/**
 * Clients that POST event batches back to back, as a real integration does: a batch answered
 * 503, or whose connection failed, is sent again (a replay once it was stored) until it is
 * acknowledged or the load stops.
 */
export function ingestLoad(opts: LoadOptions): IngestLoad {
  const answers: LoadAnswer[] = [];
  const acknowledged = new Map<string, number>();
  let stopping = false;
  const makeRecords = opts.records ?? visits;

  const post = async (batchId: string, body: string): Promise<LoadAnswer> => {
    const started = Date.now();
    const base = { batchId, retryAfter: null, contentType: null, code: null };
    try {
      const res = await fetch(`${opts.base}/api/v1/sites/${opts.siteId}/ingest/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${opts.ingestKey}`, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      const text = await res.text();
      let code: string | null = null;
      try {
        code = (JSON.parse(text) as { code?: string }).code ?? null;
      } catch {
        // not JSON: the assertions on contentType say so
      }
      return { ...base, status: res.status, ms: Date.now() - started, retryAfter: res.headers.get('retry-after'), contentType: res.headers.get('content-type'), code };
    } catch (err) {
      const status = (err as Error).name === 'TimeoutError' ? 'timeout' : 'network';
      return { ...base, status, ms: Date.now() - started };
    }
  };

  const client = async (c: number) => {
    for (let n = 0; !stopping; n++) {
      const batchId = `${opts.prefix}-${c}-${n}`;
      const records = makeRecords(batchId, opts.recordsPerBatch);
      const body = JSON.stringify({ schema_version: 'events.v1', batch_id: batchId, records });
      while (!stopping) {
        const a = await post(batchId, body);
        answers.push(a);
        if (a.status === 200 || a.status === 202) {
          acknowledged.set(batchId, records.length);
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const running = Promise.all(Array.from({ length: opts.clients }, (_, c) => client(c)));
  return {
    answers,
    acknowledged,
    async stop() {
      stopping = true;
      await running;
    },
  };
}

/** Waits until no batch of the site is queued, then checks each acknowledged one was applied exactly once. */
export async function assertAppliedOnce(db: Db, siteId: string, acknowledged: ReadonlyMap<string, number>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { queued } = await db.one<{ queued: number }>("SELECT count(*)::int AS queued FROM ingest_batches WHERE site_id = $1 AND status = 'queued'", [siteId]);
    if (queued === 0) break;
    if (Date.now() > deadline) assert.fail(`${queued} batches still queued after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // One writing transaction per batch (a single xmin over its rows): it was applied whole, once.
  const rows = await db.any<{ batch_id: string; status: string; applied: number; n: number; writers: number }>(
    `SELECT b.batch_id, b.status, b.applied, count(e.event_id)::int AS n, count(DISTINCT e.xmin::text)::int AS writers
     FROM ingest_batches b LEFT JOIN ingest_events e ON e.site_id = b.site_id AND e.batch_id = b.batch_id
     WHERE b.site_id = $1 AND b.resource = 'events' GROUP BY b.batch_id, b.status, b.applied`,
    [siteId],
  );
  const byId = new Map(rows.map((r) => [r.batch_id, r]));
  for (const [batchId, records] of acknowledged) {
    const r = byId.get(batchId);
    assert.ok(r, `acknowledged batch ${batchId} is stored`);
    assert.deepEqual({ status: r.status, applied: r.applied, n: r.n, writers: r.writers }, { status: 'completed', applied: records, n: records, writers: 1 }, batchId);
  }
}
