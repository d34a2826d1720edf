import assert from 'node:assert/strict';
import type { Resource } from '../../src/auth/scopes.ts';
import type { Db } from '../../src/db/connection.ts';
import { eventually } from './eventually.ts';

export interface LoadBatch {
  resource: Resource;
  batchId: string;
  records: Record<string, unknown>[];
}

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
  clients: number;
  /** An answer slower than this counts as a hang. */
  timeoutMs: number;
  /** The `n`th batch client `client` sends, or null when it is done. */
  next(client: number, n: number): LoadBatch | null;
}

export interface IngestLoad {
  readonly answers: readonly LoadAnswer[];
  /** Batches answered 200 or 202 at least once, by batch id. */
  readonly acknowledged: ReadonlyMap<string, LoadBatch>;
  /** Resolves when every client has run out of batches. */
  readonly finished: Promise<void>;
  /** Lets every client finish its current call and stop. */
  stop(): Promise<void>;
}

/** An endless source of visit batches `<prefix>-<client>-<n>`, for `LoadOptions.next`. */
export function visitBatches(prefix: string, count: number): LoadOptions['next'] {
  return (client, n) => {
    const batchId = `${prefix}-${client}-${n}`;
    return { resource: 'events', batchId, records: visits(batchId, count) };
  };
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
  const acknowledged = new Map<string, LoadBatch>();
  let stopping = false;

  const post = async (resource: Resource, batchId: string, body: string): Promise<LoadAnswer> => {
    const started = Date.now();
    const base = { batchId, retryAfter: null, contentType: null, code: null };
    try {
      const res = await fetch(`${opts.base}/api/v1/sites/${opts.siteId}/ingest/${resource}`, {
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
      return {
        ...base,
        status: res.status,
        ms: Date.now() - started,
        retryAfter: res.headers.get('retry-after'),
        contentType: res.headers.get('content-type'),
        code,
      };
    } catch (err) {
      const status = (err as Error).name === 'TimeoutError' ? 'timeout' : 'network';
      return { ...base, status, ms: Date.now() - started };
    }
  };

  const client = async (c: number) => {
    for (let n = 0; !stopping; n++) {
      const b = opts.next(c, n);
      if (!b) return;
      const body = JSON.stringify({ schema_version: `${b.resource}.v1`, batch_id: b.batchId, records: b.records });
      while (!stopping) {
        const a = await post(b.resource, b.batchId, body);
        answers.push(a);
        if (a.status === 200 || a.status === 202) {
          acknowledged.set(b.batchId, b);
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const running = Promise.all(Array.from({ length: opts.clients }, (_, c) => client(c))).then(() => undefined);
  return {
    answers,
    acknowledged,
    finished: running,
    async stop() {
      stopping = true;
      await running;
    },
  };
}

/** Waits until no batch of the site is queued, then checks each acknowledged one was applied exactly once. */
export async function assertAppliedOnce(
  db: Db,
  siteId: string,
  acknowledged: Iterable<LoadBatch>,
  timeoutMs: number,
): Promise<void> {
  await eventually(
    async () => {
      const { queued } = await db.one<{ queued: number }>(
        "SELECT count(*)::int AS queued FROM ingest_batches WHERE site_id = $1 AND status = 'queued'",
        [siteId],
      );
      return queued === 0 ? true : undefined;
    },
    timeoutMs,
    'no batch of the site to be queued',
  );
  for (const b of acknowledged) {
    // One writing transaction per batch (a single xmin over its rows): it was applied whole, once.
    const r = await db.oneOrNone<{ status: string; applied: number; n: number; writers: number }>(
      `SELECT b.status, b.applied, count(r.batch_id)::int AS n, count(DISTINCT r.xmin::text)::int AS writers
       FROM ingest_batches b LEFT JOIN $4:name r ON r.site_id = b.site_id AND r.batch_id = b.batch_id
       WHERE b.site_id = $1 AND b.resource = $2 AND b.batch_id = $3 GROUP BY b.status, b.applied`,
      [siteId, b.resource, b.batchId, `ingest_${b.resource}`],
    );
    assert.ok(r, `acknowledged batch ${b.batchId} is stored`);
    const n = b.records.length;
    assert.deepEqual(r, { status: 'completed', applied: n, n, writers: 1 }, `${b.resource} batch ${b.batchId}`);
  }
}
