import type { ColumnSet } from 'pg-promise';
import { RESOURCES, type Resource } from '../auth/scopes.ts';
import { pgp } from '../db/connection.ts';
import { ID_FIELD, type IngestRecord } from './schemas.ts';

type Fields = Record<string, unknown>;
type Column = readonly [name: string, read: (r: Fields) => unknown];

const top = (...names: string[]): Column[] => names.map((n) => [n, (r) => r[n] ?? null] as const);
const nested = (object: string, ...names: string[]): Column[] =>
  names.map((n) => [n, (r) => (r[object] as Fields | undefined)?.[n] ?? null] as const);

/**
 * The typed columns of each record table (sql/migrations/0002_ingest.sql), beside the ones
 * every table has. They hold what analytics filters and groups on; `record` keeps the whole
 * record as ingested. A test checks this list against the database.
 */
const TYPED_COLUMNS: Record<Resource, readonly Column[]> = {
  customers: top('status', 'created_at'),
  events: [
    ...top('event_type', 'external_user_id', 'campaign_id', 'session_id', 'activation_definition'),
    ...nested('properties', 'channel', 'plan_id', 'quantity'),
  ],
  orders: top('external_user_id', 'amount_minor', 'currency', 'status', 'plan_id'),
  payments: top('order_id', 'external_user_id', 'amount_minor', 'currency', 'status'),
  refunds: top('payment_id', 'amount_minor', 'currency', 'status'),
  subscriptions: top('external_user_id', 'plan_id', 'status', 'period_start', 'period_end', 'amount_minor', 'currency'),
  costs: top('amount_minor', 'currency', 'period_start', 'period_end', 'category', 'event_id'),
  campaigns: top('name', 'channel', 'content_ref', 'status', 'starts_at', 'ends_at'),
  expenses: top('campaign_id', 'amount_minor', 'currency', 'period_start', 'period_end', 'cost_scope'),
  observations: top('target_ref', 'target_type', 'status', 'latency_ms', 'region'),
  summaries: [
    ...top('metric', 'period_start', 'period_end', 'value', 'unit', 'currency', 'definition_version'),
    ...nested('dimensions', 'channel', 'campaign_id'),
  ],
};

/** One row of a record table as JSON the upsert's json_populate_recordset reads: column → value. */
export type RecordRow = Record<string, unknown>;

export interface RecordTable {
  resource: Resource;
  /** e.g. `ingest_events`. */
  table: string;
  /** The record's id column, e.g. `event_id`; with `site_id` the primary key. */
  idColumn: string;
  /** Every column of the table, built once (STYLE: ColumnSets). */
  columnSet: ColumnSet;
  /** `SET col = EXCLUDED.col, …` for every column but the key. */
  assignments: string;
  toRow(record: IngestRecord, meta: { siteId: string; batchId: string; receivedAt: Date; digest: Buffer }): RecordRow;
}

function recordTable(resource: Resource): RecordTable {
  const idColumn = ID_FIELD[resource];
  const typed = TYPED_COLUMNS[resource];
  const table = `ingest_${resource}`;
  const columnSet = new pgp.helpers.ColumnSet(
    [
      'site_id', idColumn, 'revision', 'source', 'occurred_at',
      ...typed.map(([name]) => name),
      'record',
      'content_digest', 'batch_id', 'received_at',
    ],
    { table },
  );
  return {
    resource,
    table,
    idColumn,
    columnSet,
    assignments: columnSet.assignColumns({ from: 'EXCLUDED', skip: ['site_id', idColumn] }),
    toRow(record, meta) {
      const r = record as Fields;
      const row: RecordRow = {
        site_id: meta.siteId,
        [idColumn]: r[idColumn],
        revision: r.revision,
        source: r.source,
        occurred_at: r.occurred_at,
        record,
        // bytea's text input form, as json_populate_recordset hands strings to the column type.
        content_digest: `\\x${meta.digest.toString('hex')}`,
        batch_id: meta.batchId,
        received_at: meta.receivedAt.toISOString(),
      };
      for (const [name, read] of typed) row[name] = read(r);
      return row;
    },
  };
}

export const RECORD_TABLES = Object.fromEntries(RESOURCES.map((r) => [r, recordTable(r)])) as Record<Resource, RecordTable>;
