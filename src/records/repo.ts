import type { Resource } from '../auth/scopes.ts';
import type { Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';
import type { IngestRecordOf } from '../ingest/schemas.ts';
import { RECORD_TABLES } from '../ingest/tables.ts';
import type { RecordListQuery } from './schemas.ts';

const q = {
  list: sqlFile('records/list.sql'),
  keyset: sqlFile('records/keyset.sql'),
  count: sqlFile('records/count.sql'),
  lastIngested: sqlFile('records/last-ingested.sql'),
};

export interface RecordPage<R extends Resource> {
  /** Records as validated when they were ingested. */
  rows: { record: IngestRecordOf<R>; received_at: Date }[];
  total: number;
  lastIngestedAt: Date | null;
  asOf: Date;
}

/** One page of records with its total and freshness, read on one connection. */
export function listRecords<R extends Resource>(
  db: Db,
  resource: R,
  siteId: string,
  query: RecordListQuery,
): Promise<RecordPage<R>> {
  const t = RECORD_TABLES[resource];
  const params = {
    table: t.table,
    idColumn: t.idColumn,
    siteId,
    resource,
    from: query.from ?? null,
    to: query.to ?? null,
    limit: query.limit,
    offset: query.offset,
  };
  return db.task('records-list', async (task) => {
    const rows = await task.any<RecordPage<R>['rows'][number]>(q.list, params);
    const { total } = await task.one<{ total: number }>(q.count, params);
    const fresh = await task.one<{ last_ingested_at: Date | null; as_of: Date }>(q.lastIngested, params);
    return { rows, total, lastIngestedAt: fresh.last_ingested_at, asOf: fresh.as_of };
  });
}

/** How many records of a family a window holds. */
export async function countRecords(
  db: Db,
  resource: Resource,
  siteId: string,
  window: { from?: string; to?: string },
): Promise<number> {
  const params = { table: RECORD_TABLES[resource].table, siteId, from: window.from ?? null, to: window.to ?? null };
  return (await db.one<{ total: number }>(q.count, params)).total;
}

/** Where a walk by key stands: the (occurred_at, id) of the last row read. */
export interface RecordCursor {
  at: string;
  id: string;
}

/**
 * The next `limit` records after `after` (from the start when null), in the reads' order.
 * Each page is its own query: a long walk holds no transaction open, and a record changed
 * while it runs is read in the state it has when its page is read.
 */
export async function recordsAfter(
  db: Db,
  resource: Resource,
  siteId: string,
  window: { from?: string; to?: string },
  after: RecordCursor | null,
  limit: number,
): Promise<{ rows: RecordPage<Resource>['rows']; next: RecordCursor | null }> {
  const t = RECORD_TABLES[resource];
  const rows = await db.any<RecordPage<Resource>['rows'][number] & RecordCursor>(q.keyset, {
    table: t.table,
    idColumn: t.idColumn,
    siteId,
    from: window.from ?? null,
    to: window.to ?? null,
    afterAt: after?.at ?? null,
    afterId: after?.id ?? null,
    limit,
  });
  const last = rows.at(-1);
  return { rows, next: rows.length === limit && last ? { at: last.at, id: last.id } : null };
}
