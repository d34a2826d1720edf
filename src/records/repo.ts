import type { Resource } from '../auth/scopes.ts';
import type { Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';
import type { IngestRecordOf } from '../ingest/schemas.ts';
import { RECORD_TABLES } from '../ingest/tables.ts';
import type { RecordListQuery } from './schemas.ts';

const q = {
  list: sqlFile('records/list.sql'),
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
