import type { Db } from '../db/connection.ts';
import type { FieldError } from '../errors/http-error.ts';
import { jsonPointer } from '../http/validate.ts';
import { unstorableValues } from '../shared/text.ts';
import { sha256 } from './canonical.ts';
import type { BatchKey, BatchProblem } from './receipt.ts';
import {
  applyFreshBatch,
  batchPayload,
  countApplyFailure,
  findBatch,
  finishBatch,
  lockBatch,
  relaxCommit,
  storedMoney,
  storedRevisions,
  upsertRecords,
} from './repo.ts';
import { recordId, type IngestRecord } from './schemas.ts';
import { hasReferences, REFERENCES, referenceErrors } from './semantic.ts';
import { RECORD_TABLES } from './tables.ts';

export type ApplyOutcome =
  | { status: 'completed'; applied: number; unchanged: number }
  | { status: 'rejected'; problem: BatchProblem }
  /** Nothing to do: already finished by an earlier run of the same job, or unknown. */
  | { status: 'skipped'; reason: 'completed' | 'rejected' | 'missing' };

/** A concurrent batch stored one of our records between our read and our write. */
class RaceLost extends Error {
  override name = 'RaceLost';
}

/** The fresh path cannot decide this batch: the revision-guarded path must. */
class NotFresh extends Error {
  override name = 'NotFresh';
}

const UNIQUE_VIOLATION = '23505';

// Deadlocks and lost races resolve on a fresh attempt; beyond this many the job's own
// BullMQ retries (with backoff) take over.
const ATTEMPTS = 5;
const RETRYABLE_PG_CODES = new Set(['40P01', '40001']);

/**
 * SQLSTATE classes 22 (data exception) and 23 (integrity constraint violation): PostgreSQL
 * refused the records themselves, so the same batch fails the same way on every attempt.
 * Anything else (a lost connection, a server shutting down) may pass and is retried for ever.
 */
const DATA_ERROR = /^2[23]/;

/**
 * Data failures of one batch before it is rejected as batch_unprocessable. More than one, so a
 * failure that was not the data's after all (a concurrent schema change) gets another chance.
 */
export const MAX_DATA_FAILURES = 3;

/**
 * Applies a queued batch in one transaction: all its records or none (CONTRACT §3). Safe to
 * run any number of times for the same batch — a run after the batch finished changes
 * nothing — which is what lets BullMQ redeliver a job whose worker died before acking it.
 * A batch PostgreSQL cannot store (which the front door should have refused) is rejected
 * after MAX_DATA_FAILURES attempts instead of staying queued for ever.
 */
export async function applyBatch(db: Db, key: BatchKey): Promise<ApplyOutcome> {
  try {
    return await applyRetrying(db, key);
  } catch (err) {
    if (!DATA_ERROR.test(pgCode(err))) throw err;
    const outcome = await countDataFailure(db, key, err as Error);
    if (!outcome) throw err;
    return outcome;
  }
}

function pgCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/**
 * Counts a data failure of a queued batch; at MAX_DATA_FAILURES rejects it, naming every value
 * of its records that PostgreSQL cannot hold. Null while the batch should be tried again.
 */
async function countDataFailure(db: Db, key: BatchKey, err: Error): Promise<ApplyOutcome | null> {
  return db.tx('ingest-apply-failed', async (t): Promise<ApplyOutcome | null> => {
    const failures = await countApplyFailure(t, key);
    if (failures === null) {
      const batch = await findBatch(t, key);
      return {
        status: 'skipped',
        reason: batch?.status === 'completed' || batch?.status === 'rejected' ? batch.status : 'missing',
      };
    }
    if (failures < MAX_DATA_FAILURES) return null;
    const payload = await batchPayload(t, key);
    const errors = (payload ? unstorableValues(JSON.parse(payload)) : []).map((e) => ({
      path: jsonPointer(['records', ...e.path]),
      message: e.message,
    }));
    return reject(t, key, {
      code: 'batch_unprocessable',
      detail: `PostgreSQL refused to store this batch ${failures} times (${pgCode(err)}: ${err.message}); nothing was applied and it will not be tried again`,
      errors,
    });
  });
}

/** One batch, with fresh attempts for deadlocks and lost races. */
async function applyRetrying(db: Db, key: BatchKey): Promise<ApplyOutcome> {
  // Nearly every batch holds only records never stored before. The fresh path bets on that
  // and inserts them without reading stored revisions or probing each key for a conflict;
  // a lost bet rolls back (nothing of it stays) and the guarded path applies the batch by
  // the revision rules.
  let fresh = true;
  let attempt = 1;
  for (;;) {
    try {
      return await (fresh ? applyFresh(db, key) : db.tx('ingest-apply', (t) => applyGuarded(t, key)));
    } catch (err) {
      const code = pgCode(err);
      if (fresh && (err instanceof NotFresh || code === UNIQUE_VIOLATION)) {
        fresh = false;
        continue;
      }
      const retryable = err instanceof RaceLost || RETRYABLE_PG_CODES.has(code);
      if (!retryable || attempt++ >= ATTEMPTS) throw err;
    }
  }
}

type Tx = Parameters<Parameters<Db['tx']>[1]>[0];

/**
 * SHA-256 of a record's canonical JSON. The payload is canonical JSON and JSON.parse keeps key
 * order, so serializing the parsed record gives the same text back. Only needed for records
 * whose revision equals the stored one, so it is computed then, not for every record.
 */
function recordDigest(r: IngestRecord): Buffer {
  return sha256(JSON.stringify(r));
}

/**
 * Applies a batch none of whose records is stored: one statement that inserts them straight
 * from the stored payload, which never travels to the worker unless payments or refunds must
 * be checked against stored orders and payments first. A stored record fails it with
 * unique_violation, and nothing of it stays.
 */
async function applyFresh(db: Db, key: BatchKey): Promise<ApplyOutcome> {
  if (hasReferences(key.resource)) {
    const payload = await batchPayload(db, key);
    const records = payload ? (JSON.parse(payload) as IngestRecord[]) : [];
    // A rejection must name revision conflicts before these (README), which only the guarded path reads.
    if (
      await moneyProblem(
        db,
        key,
        records.map((record, index) => ({ index, record })),
      )
    )
      throw new NotFresh('stored-data violations');
  }
  const applied = await applyFreshBatch(db, RECORD_TABLES[key.resource], key);
  if (applied !== null) return { status: 'completed', applied, unchanged: 0 };
  const batch = await findBatch(db, key);
  if (!batch) return { status: 'skipped', reason: 'missing' };
  if (batch.status === 'queued') throw new NotFresh('queued, yet not applied');
  return { status: 'skipped', reason: batch.status };
}

/** Applies a batch by the revision rules of CONTRACT §3, whatever is stored. */
async function applyGuarded(t: Tx, key: BatchKey): Promise<ApplyOutcome> {
  await relaxCommit(t);
  const batch = await lockBatch(t, key);
  if (!batch) return { status: 'skipped', reason: 'missing' };
  if (batch.status !== 'queued') return { status: 'skipped', reason: batch.status };

  const table = RECORD_TABLES[key.resource];
  const records = JSON.parse(batch.payload!) as IngestRecord[];
  const idOf = (r: IngestRecord) => recordId(key.resource, r);
  const stored = new Map((await storedRevisions(t, table, key.siteId, records.map(idOf))).map((s) => [s.id, s]));

  const toApply: number[] = [];
  const conflicts: FieldError[] = [];
  let unchanged = 0;
  let sameRevisionConflict = false;
  records.forEach((r, i) => {
    const s = stored.get(idOf(r));
    if (!s || r.revision > s.revision) toApply.push(i);
    else if (r.revision === s.revision && s.content_digest.equals(recordDigest(r))) unchanged++;
    else if (r.revision === s.revision) {
      sameRevisionConflict = true;
      conflicts.push({
        path: `/records/${i}`,
        message: `revision_conflict: revision ${r.revision} of ${idOf(r)} is already stored with other content`,
      });
    } else {
      conflicts.push({
        path: `/records/${i}`,
        message: `revision_stale: revision ${r.revision} of ${idOf(r)} is older than the stored revision ${s.revision}`,
      });
    }
  });
  if (conflicts.length) {
    return reject(t, key, {
      code: sameRevisionConflict ? 'revision_conflict' : 'revision_stale',
      detail: `${conflicts.length} of ${records.length} records conflict with stored revisions; nothing was applied`,
      errors: conflicts,
    });
  }

  const problem = await moneyProblem(
    t,
    key,
    toApply.map((index) => ({ index, record: records[index]! })),
  );
  if (problem) return reject(t, key, problem);

  if (toApply.length) {
    const written = await upsertRecords(t, table, key, toApply);
    if (written.length !== toApply.length)
      throw new RaceLost(`${toApply.length - written.length} records were stored concurrently with a newer revision`);
  }
  await finishBatch(t, key, { status: 'completed', applied: toApply.length, unchanged, problem: null });
  return { status: 'completed', applied: toApply.length, unchanged };
}

/** The 422 of records to apply that disagree with the stored orders or payments they reference. */
async function moneyProblem(
  t: Db | Tx,
  key: BatchKey,
  items: { index: number; record: IngestRecord }[],
): Promise<BatchProblem | null> {
  if (!hasReferences(key.resource) || !items.length) return null;
  const ref = REFERENCES[key.resource];
  const refIds = [...new Set(items.map((it) => (it.record as Record<string, unknown>)[ref.field] as string))];
  const money = new Map((await storedMoney(t, RECORD_TABLES[ref.resource], key.siteId, refIds)).map((m) => [m.id, m]));
  const errors = referenceErrors(key.resource, items, money);
  if (!errors.length) return null;
  return {
    code: 'semantic_invalid',
    detail: `${errors.length} violations against stored ${ref.resource}; nothing was applied`,
    errors,
  };
}

async function reject(t: Tx, key: BatchKey, problem: BatchProblem): Promise<ApplyOutcome> {
  await finishBatch(t, key, { status: 'rejected', applied: 0, unchanged: 0, problem });
  return { status: 'rejected', problem };
}
