import type { Resource } from '../auth/scopes.ts';
import type { Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';
import type { BatchKey, BatchProblem, BatchRow, BatchStatus } from './receipt.ts';
import type { RecordTable } from './tables.ts';

const q = {
  accept: sqlFile('ingest/batch-accept.sql'),
  find: sqlFile('ingest/batch-find.sql'),
  lock: sqlFile('ingest/batch-lock.sql'),
  lockStatus: sqlFile('ingest/batch-lock-status.sql'),
  finish: sqlFile('ingest/batch-finish.sql'),
  stalled: sqlFile('ingest/batches-stalled.sql'),
  storedRevisions: sqlFile('ingest/stored-revisions.sql'),
  storedMoney: sqlFile('ingest/stored-money.sql'),
  insert: sqlFile('ingest/insert-records.sql'),
  upsert: sqlFile('ingest/upsert-records.sql'),
  relaxedCommit: sqlFile('ingest/apply-relaxed-commit.sql'),
};

/** The channel batch-finish.sql notifies on; the payload is `site/resource/batch_id`. */
export const BATCH_FINISHED_CHANNEL = 'radar_ingest_batches';

export function batchChannelKey(key: BatchKey): string {
  return `${key.siteId}/${key.resource}/${key.batchId}`;
}

/** A database or a transaction: the queries below run in either. */
type Queryable = Pick<Db, 'one' | 'oneOrNone' | 'any' | 'none' | 'result'>;

const params = (k: BatchKey) => ({ siteId: k.siteId, resource: k.resource, batchId: k.batchId });

export function acceptBatch(db: Queryable, key: BatchKey, b: { digest: Buffer; received: number; payload: string }): Promise<(BatchRow & { created: boolean }) | null> {
  return db.oneOrNone(q.accept, { ...params(key), ...b });
}

export function findBatch(db: Queryable, key: BatchKey): Promise<BatchRow | null> {
  return db.oneOrNone<BatchRow>(q.find, params(key));
}

/** In a transaction that only applies a stored batch: commit without waiting for the WAL flush. */
export function relaxCommit(db: Queryable): Promise<null> {
  return db.none(q.relaxedCommit);
}

export function lockBatch(db: Queryable, key: BatchKey): Promise<{ status: BatchStatus; payload: string | null; received_at: Date } | null> {
  return db.oneOrNone(q.lock, params(key));
}

export function lockBatchStatus(db: Queryable, key: BatchKey): Promise<{ status: BatchStatus } | null> {
  return db.oneOrNone(q.lockStatus, params(key));
}

export async function finishBatch(db: Queryable, key: BatchKey, outcome: { status: Exclude<BatchStatus, 'queued'>; applied: number; unchanged: number; problem: BatchProblem | null }): Promise<void> {
  await db.one(q.finish, { ...params(key), ...outcome });
}

export interface StalledBatch {
  site_id: string;
  resource: Resource;
  batch_id: string;
}

export function stalledBatches(db: Queryable, olderThanSeconds: number, limit: number): Promise<StalledBatch[]> {
  return db.any<StalledBatch>(q.stalled, { olderThanSeconds, limit });
}

export function storedRevisions(db: Queryable, t: RecordTable, siteId: string, ids: readonly string[]): Promise<{ id: string; revision: number; content_digest: Buffer }[]> {
  return db.any(q.storedRevisions, { table: t.table, idColumn: t.idColumn, siteId, ids });
}

export function storedMoney(db: Queryable, t: RecordTable, siteId: string, ids: readonly string[]): Promise<{ id: string; amount_minor: number; currency: string }[]> {
  return db.any(q.storedMoney, { table: t.table, idColumn: t.idColumn, siteId, ids });
}

/**
 * Inserts every record of a stored batch; fails with unique_violation (23505) when one is
 * already stored. Returns how many rows were written.
 */
export async function insertRecords(db: Queryable, t: RecordTable, key: BatchKey): Promise<number> {
  const r = await db.result(q.insert, { ...params(key), table: t.table, idColumn: t.idColumn, ...t.fromPayload });
  return r.rowCount;
}

/** Upserts the records at `positions` (0-based) of a stored batch, guarded by revision; returns the ids written. */
export async function upsertRecords(db: Queryable, t: RecordTable, key: BatchKey, positions: readonly number[]): Promise<string[]> {
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
