import pTimeout from 'p-timeout';
import type { AppContext } from '../app-context.ts';
import type { Resource } from '../auth/scopes.ts';
import { HttpError, unavailable } from '../errors/http-error.ts';
import type { Principal } from '../auth/principal.ts';
import type { RouteRequest, TypedResult } from '../http/route.ts';
import { ingestQuotaOf } from '../limits/site-limits.ts';
import { enqueue, JOBS } from '../queues/catalog.ts';
import type { ResultWatch } from '../queues/worker-results.ts';
import type { AbortWatch } from '../shared/abort.ts';
import { canonicalBatch, formatDigest } from './canonical.ts';
import { presentReceipt, receiptPath, type BatchKey, type BatchRow, type Receipt } from './receipt.ts';
import { acceptBatch, BATCH_FINISHED_CHANNEL, batchChannelKey, findBatch, parseBatchOutcome } from './repo.ts';
import type { IngestBatch } from './schemas.ts';
import { batchSemanticErrors } from './semantic.ts';

/**
 * How long an enqueue may take before the request answers 503. The batch is already stored
 * by then, so a late or failed enqueue loses nothing: the sweeper enqueues it again and the
 * client's retry is a replay.
 */
const ENQUEUE_TIMEOUT_MS = 2000;

/**
 * POST /sites/{siteId}/ingest/<resource> (CONTRACT §3): validate, store the batch durably as
 * queued, enqueue its job, then answer with the final receipt (200, or the 409/422 problem of a
 * rejected batch) or, on `Prefer: respond-async` or when INGEST_SYNC_WAIT_MS runs out, 202.
 */
export async function ingestBatch(
  ctx: RouteRequest<{ readonly siteId: string }, undefined, IngestBatch, Principal>,
  app: AppContext,
  resource: Resource,
): Promise<TypedResult<Receipt>> {
  const { body } = ctx;
  const semantic = batchSemanticErrors(resource, body.records, Date.now());
  if (semantic.length) {
    throw new HttpError('semantic_invalid', {
      detail: `${semantic.length} semantic violations; nothing was stored`,
      errors: semantic,
    });
  }
  const key: BatchKey = { siteId: ctx.params.siteId, resource, batchId: body.batch_id };
  // The quota counts records, not requests: one 500-record batch weighs 500 single ones.
  Object.assign(
    ctx.responseHeaders,
    await app.limiter.enforce(
      `ingest-site:${key.siteId}`,
      { perMinute: await ingestQuotaOf(app, key.siteId, ctx.principal) },
      "this site's ingest quota (records)",
      body.records.length,
    ),
  );
  const canonical = canonicalBatch(body.records);
  const { digest } = canonical;

  const stored = await accept(app, key, { ...canonical, received: body.records.length });
  if (!stored.digest.equals(digest)) {
    throw new HttpError('batch_conflict', {
      detail: `batch ${key.batchId} was already received with other records (${formatDigest(stored.digest)}, this one is ${formatDigest(digest)})`,
    });
  }
  const replay = !stored.created;
  if (stored.status !== 'queued') return finalAnswer(stored, replay);

  const respondAsync = prefersAsync(ctx.headers.prefer);
  // Watch before enqueueing: a fast worker may finish before enqueue() even returns.
  const watch = respondAsync ? null : app.workerResults.watch(BATCH_FINISHED_CHANNEL, batchChannelKey(key));
  try {
    await enqueueApply(app, key);
    if (!watch) return accepted(stored, key, replay, true);
    const row = await waitUntilFinished(app, stored, watch, replay, ctx.reply.signal);
    ctx.log.debug({ batchId: key.batchId, resource, status: row.status }, 'ingest answered');
    return row.status === 'queued' ? accepted(row, key, replay, false) : finalAnswer(row, replay);
  } finally {
    watch?.close();
  }
}

async function accept(
  app: AppContext,
  key: BatchKey,
  b: Parameters<typeof acceptBatch>[2],
): Promise<BatchRow & { created: boolean }> {
  // No row means a concurrent request inserted this identity after our snapshot; by the
  // second try it is committed and visible.
  for (let i = 0; i < 3; i++) {
    const row = await app.ingestGate.run(() => acceptBatch(app.db, key, b));
    if (row) return row;
  }
  throw new Error(`batch ${key.batchId} neither inserted nor found`);
}

async function enqueueApply(app: AppContext, key: BatchKey): Promise<void> {
  if (app.redis.status !== 'ready') throw unavailable('Redis');
  try {
    await pTimeout(
      enqueue(app.queues, JOBS.ingestApply, { site_id: key.siteId, resource: key.resource, batch_id: key.batchId }),
      {
        milliseconds: ENQUEUE_TIMEOUT_MS,
        message: `enqueue took over ${ENQUEUE_TIMEOUT_MS} ms`,
      },
    );
  } catch (err) {
    throw unavailable('Redis', err);
  }
}

/** Waits up to INGEST_SYNC_WAIT_MS for the queued batch `stored` to finish; returns its latest row. */
async function waitUntilFinished(
  app: AppContext,
  stored: BatchRow,
  watch: ResultWatch,
  replay: boolean,
  signal: AbortWatch,
): Promise<BatchRow> {
  const key: BatchKey = { siteId: stored.site_id, resource: stored.resource, batchId: stored.batch_id };
  const deadline = Date.now() + app.config.INGEST_SYNC_WAIT_MS;
  // A replayed batch may have finished before we started watching.
  let skipWait = replay;
  for (;;) {
    const detail = skipWait ? null : await watch.next(deadline - Date.now(), signal);
    const outcome = detail ? parseBatchOutcome(detail) : null;
    skipWait = false;
    // The notification completes the receipt of a completed batch; a rejected one's problem is read.
    if (outcome?.status === 'completed') {
      return {
        ...stored,
        status: 'completed',
        applied: outcome.applied,
        unchanged: outcome.unchanged,
        completed_at: outcome.completedAt,
      };
    }
    const row = await app.ingestGate.run(() => findBatch(app.db, key));
    if (!row) throw new Error(`batch ${key.batchId} disappeared while queued`);
    if (row.status !== 'queued' || Date.now() >= deadline || signal.aborted) return row;
  }
}

function finalAnswer(row: BatchRow, replay: boolean): TypedResult<Receipt> {
  if (row.status === 'rejected' && row.problem) {
    throw new HttpError(row.problem.code, { detail: row.problem.detail, errors: row.problem.errors });
  }
  return { body: presentReceipt(row, replay) };
}

function accepted(row: BatchRow, key: BatchKey, replay: boolean, preferenceApplied: boolean): TypedResult<Receipt> {
  return {
    status: 202,
    headers: { location: receiptPath(key), ...(preferenceApplied ? { 'preference-applied': 'respond-async' } : {}) },
    body: presentReceipt(row, replay),
  };
}

/** True when a Prefer header (RFC 7240) asks for `respond-async`. */
export function prefersAsync(prefer: string | undefined): boolean {
  return !!prefer && prefer.split(',').some((p) => p.split(';')[0]!.trim().toLowerCase() === 'respond-async');
}
