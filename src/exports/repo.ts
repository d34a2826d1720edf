import type { Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';
import type { ExportRequest, ExportRow } from './schemas.ts';

const q = {
  insert: sqlFile('exports/insert.sql'),
  find: sqlFile('exports/find.sql'),
  findById: sqlFile('exports/find-by-id.sql'),
  list: sqlFile('exports/list.sql'),
  start: sqlFile('exports/start.sql'),
  chunk: sqlFile('exports/chunk.sql'),
  complete: sqlFile('exports/complete.sql'),
  fail: sqlFile('exports/fail.sql'),
  readChunk: sqlFile('exports/read-chunk.sql'),
  expire: sqlFile('exports/expire.sql'),
  unfinished: sqlFile('exports/unfinished.sql'),
};

export function insertExport(db: Db, siteId: string, request: ExportRequest): Promise<ExportRow> {
  return db.one<ExportRow>(q.insert, { siteId, request });
}

export function findExport(db: Db, siteId: string, id: string): Promise<ExportRow | null> {
  return db.oneOrNone<ExportRow>(q.find, { siteId, id });
}

export function findExportById(db: Db, id: string): Promise<ExportRow | null> {
  return db.oneOrNone<ExportRow>(q.findById, { id });
}

export function recentExports(db: Db, siteId: string, limit: number): Promise<ExportRow[]> {
  return db.any<ExportRow>(q.list, { siteId, limit });
}

/** Marks the export running from scratch; false when it is no longer queued or running. */
export async function startExport(db: Db, id: string, rowsTotal: number): Promise<boolean> {
  return (await db.oneOrNone(q.start, { id, rowsTotal })) !== null;
}

export function appendChunk(
  db: Db,
  id: string,
  chunk: { seq: number; data: Buffer; rowsDone: number; bytes: number },
): Promise<null> {
  return db.none(q.chunk, { id, ...chunk });
}

export function completeExport(
  db: Db,
  id: string,
  done: { rowsDone: number; bytes: number; meta: Record<string, unknown> | null; ttlHours: number },
): Promise<null> {
  return db.none(q.complete, { id, ...done });
}

export function failExport(db: Db, id: string, error: { code: string; detail: string }): Promise<null> {
  return db.none(q.fail, { id, error });
}

export async function readChunk(db: Db, id: string, seq: number): Promise<Buffer | null> {
  return (await db.oneOrNone<{ data: Buffer }>(q.readChunk, { id, seq }))?.data ?? null;
}

/** Deletes the files past their expiry; returns how many. */
export async function expireExports(db: Db): Promise<number> {
  return (await db.any(q.expire)).length;
}

export async function unfinishedExports(db: Db): Promise<string[]> {
  return (await db.any<{ id: string }>(q.unfinished)).map((r) => r.id);
}
