import type { Resource } from '../auth/scopes.ts';
import { pgp, type Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';
import type { BatchKey, BatchProblem, BatchRow, BatchStatus } from './receipt.ts';
import type { RecordTable } from './tables.ts';

const q = {
  accept: sqlFile('ingest/batch-accept.sql'),
  find: sqlFile('ingest/batch-find.sql'),
  recent: sqlFile('ingest/batches-recent.sql'),
  lock: sqlFile('ingest/batch-lock.sql'),
  payload: sqlFile('ingest/batch-payload.sql'),
  finish: sqlFile('ingest/batch-finish.sql'),
  applyFailed: sqlFile('ingest/batch-apply-failed.sql'),
  stalled: sqlFile('ingest/batches-stalled.sql'),
  storedRevisions: sqlFile('ingest/stored-revisions.sql'),
  storedMoney: sqlFile('ingest/stored-money.sql'),
  applyFresh: sqlFile('ingest/apply-fresh.sql'),
  upsert: sqlFile('ingest/upsert-records.sql'),
  relaxedCommit: sqlFile('ingest/apply-relaxed-commit.sql'),
};

/**
 * The channel batch-finish.sql and apply-fresh.sql notify on (src/queues/worker-results.ts);
 * the payload is `site/resource/batch_id` and the outcome (parseBatchOutcome).
 */
export const BATCH_FINISHED_CHANNEL = 'radar_ingest_batches';

export function batchChannelKey(key: BatchKey): string {
  return `${key.siteId}/${key.resource}/${key.batchId}`;
}

/**
 * What the notification of a finished batch says besides its key: with the row the front door
 * stored, the whole receipt of a completed batch.
 */
export interface BatchOutcome {
  status: 'completed' | 'rejected';
  applied: number;
  unchanged: number;
  completedAt: Date;
}

/** `<status> <applied> <unchanged> <completed_at in epoch ms>`, or null when the detail is not that. */
export function parseBatchOutcome(detail: string): BatchOutcome | null {
  const [status, applied, unchanged, completedMs] = detail.split(' ');
  if ((status !== 'completed' && status !== 'rejected') || completedMs === undefined) return null;
  return { status, applied: Number(applied), unchanged: Number(unchanged), completedAt: new Date(Number(completedMs)) };
}

/** A database or a transaction: the queries below run in either. */
type Queryable = Pick<Db, 'one' | 'oneOrNone' | 'any' | 'none'>;

const params = (k: BatchKey) => ({ siteId: k.siteId, resource: k.resource, batchId: k.batchId });

export function acceptBatch(
  db: Queryable,
  key: BatchKey,
  b: { digest: Buffer; received: number; payload: string },
): Promise<(BatchRow & { created: boolean }) | null> {
  // Unnamed, not a named prepared statement: PgBouncer in transaction mode (README) would
  // send a named one's later executions to connections that never prepared it.
  return db.oneOrNone(
    new pgp.ParameterizedQuery({
      text: q.accept,
      values: [key.siteId, key.resource, key.batchId, b.digest, b.received, b.payload],
    }),
  );
}

/** A site's newest batches, newest first (the console's ingest page). */
export function recentBatches(db: Db, siteId: string, limit: number): Promise<BatchRow[]> {
  return db.any<BatchRow>(q.recent, { siteId, limit });
}

export function findBatch(db: Queryable, key: BatchKey): Promise<BatchRow | null> {
  return db.oneOrNone<BatchRow>(q.find, params(key));
}

/** In a transaction that only applies a stored batch: commit without waiting for the WAL flush. */
export function relaxCommit(db: Queryable): Promise<null> {
  return db.none(q.relaxedCommit);
}

export function lockBatch(
  db: Queryable,
  key: BatchKey,
): Promise<{ status: BatchStatus; payload: string | null; received_at: Date } | null> {
  return db.oneOrNone(q.lock, params(key));
}

/** The records of a queued batch (canonical JSON), read without a lock; null once it is no longer queued. */
export async function batchPayload(db: Queryable, key: BatchKey): Promise<string | null> {
  return (await db.oneOrNone<{ payload: string }>(q.payload, params(key)))?.payload ?? null;
}

export async function finishBatch(
  db: Queryable,
  key: BatchKey,
  outcome: { status: Exclude<BatchStatus, 'queued'>; applied: number; unchanged: number; problem: BatchProblem | null },
): Promise<void> {
  await db.one(q.finish, { ...params(key), ...outcome });
}

/** Counts a data failure of a queued batch; the failures so far, or null when it is no longer queued. */
export async function countApplyFailure(db: Queryable, key: BatchKey): Promise<number | null> {
  return (await db.oneOrNone<{ failures: number }>(q.applyFailed, params(key)))?.failures ?? null;
}

export interface StalledBatch {
  site_id: string;
  resource: Resource;
  batch_id: string;
}

export function stalledBatches(db: Queryable, olderThanSeconds: number, limit: number): Promise<StalledBatch[]> {
  return db.any<StalledBatch>(q.stalled, { olderThanSeconds, limit });
}

export function storedRevisions(
  db: Queryable,
  t: RecordTable,
  siteId: string,
  ids: readonly string[],
): Promise<{ id: string; revision: number; content_digest: Buffer }[]> {
  return db.any(q.storedRevisions, { table: t.table, idColumn: t.idColumn, siteId, ids });
}

export function storedMoney(
  db: Queryable,
  t: RecordTable,
  siteId: string,
  ids: readonly string[],
): Promise<{ id: string; amount_minor: number; currency: string }[]> {
  return db.any(q.storedMoney, { table: t.table, idColumn: t.idColumn, siteId, ids });
}

/**
 * Applies a queued batch none of whose records is stored, in one statement (apply-fresh.sql).
 * Returns how many records it wrote, or null when the batch is missing or no longer queued;
 * fails with unique_violation (23505) when one of its records is already stored.
 */
export async function applyFreshBatch(db: Queryable, t: RecordTable, key: BatchKey): Promise<number | null> {
  const row = await db.oneOrNone<{ applied: number }>({
    ...freshStatement(t),
    values: [key.siteId, key.resource, key.batchId],
  });
  return row?.applied ?? null;
}

const freshStatements = new Map<string, { name: string; text: string }>();

/**
 * apply-fresh.sql for one record table as a named prepared statement: each connection parses
 * and plans the statement once, not once per batch. The batch key travels as $1–$3.
 */
function freshStatement(t: RecordTable): { name: string; text: string } {
  let statement = freshStatements.get(t.table);
  if (!statement) {
    const bound = (n: number) => ({ rawType: true, toPostgres: () => `$${n}` });
    statement = {
      name: `ingest-apply-fresh-${t.resource}`,
      text: pgp.as.format(q.applyFresh, {
        siteId: bound(1),
        resource: bound(2),
        batchId: bound(3),
        table: t.table,
        idColumn: t.idColumn,
        ...t.fromPayload,
      }),
    };
    freshStatements.set(t.table, statement);
  }
  return statement;
}

/** Upserts the records at `positions` (0-based) of a stored batch, guarded by revision; returns the ids written. */
export async function upsertRecords(
  db: Queryable,
  t: RecordTable,
  key: BatchKey,
  positions: readonly number[],
): Promise<string[]> {
  const written = await db.any<{ id: string }>(q.upsert, {
    ...params(key),
    apply: positions.map((i) => i + 1),
    table: t.table,
    idColumn: t.idColumn,
    assignments: t.assignments,
    ...t.fromPayload,
  });
  return written.map((r) => r.id);
}
