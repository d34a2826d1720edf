import type { ColumnSet } from 'pg-promise';
import { RESOURCES, type Resource } from '../auth/scopes.ts';
import { pgp } from '../db/connection.ts';
import { ID_FIELD, type IngestRecord } from './schemas.ts';

type Fields = Record<string, unknown>;

/** Typed columns: top-level fields, and fields of one nested object copied up. */
interface TypedColumns {
  top: readonly string[];
  nested?: { object: string; fields: readonly string[] };
}

/**
 * The typed columns of each record table (sql/migrations/0002_ingest.sql), beside the ones
 * every table has. Each is named like the record field it copies. They hold what analytics
 * filters and groups on; `record` keeps the whole record as ingested. A test checks the tables
 * against this list.
 */
const TYPED_COLUMNS: Record<Resource, TypedColumns> = {
  customers: { top: ['status', 'created_at'] },
  events: {
    top: ['event_type', 'external_user_id', 'campaign_id', 'session_id', 'activation_definition'],
    nested: { object: 'properties', fields: ['channel', 'plan_id', 'quantity'] },
  },
  orders: { top: ['external_user_id', 'amount_minor', 'currency', 'status', 'plan_id'] },
  payments: { top: ['order_id', 'external_user_id', 'amount_minor', 'currency', 'status'] },
  refunds: { top: ['payment_id', 'amount_minor', 'currency', 'status'] },
  subscriptions: {
    top: ['external_user_id', 'plan_id', 'status', 'period_start', 'period_end', 'amount_minor', 'currency'],
  },
  costs: { top: ['amount_minor', 'currency', 'period_start', 'period_end', 'category', 'event_id'] },
  campaigns: { top: ['name', 'channel', 'content_ref', 'status', 'starts_at', 'ends_at'] },
  expenses: { top: ['campaign_id', 'amount_minor', 'currency', 'period_start', 'period_end', 'cost_scope'] },
  observations: { top: ['target_ref', 'target_type', 'status', 'latency_ms', 'region'] },
  summaries: {
    top: ['metric', 'period_start', 'period_end', 'value', 'unit', 'currency', 'definition_version'],
    nested: { object: 'dimensions', fields: ['channel', 'campaign_id'] },
  },
};

/**
 * The SQL type of each field copied into a column whose type is not text, the same in every
 * table that has it (a test checks the tables against this list).
 */
export const COLUMN_TYPES: Readonly<Record<string, string>> = {
  revision: 'integer',
  occurred_at: 'timestamptz',
  created_at: 'timestamptz',
  period_start: 'timestamptz',
  period_end: 'timestamptz',
  starts_at: 'timestamptz',
  ends_at: 'timestamptz',
  amount_minor: 'bigint',
  quantity: 'integer',
  latency_ms: 'integer',
  value: 'numeric',
};

/** One row of a record table: column → value. */
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
  /**
   * SQL pieces of sql/ingest/apply-fresh.sql and upsert-records.sql, over a record `x.j`
   * (jsonb): the column list, the select list, and the record's id.
   */
  fromPayload: { columns: string; select: string; id: string };
  /** The row a record becomes, as JS values (the bench COPYs these). */
  toRow(record: IngestRecord, meta: { siteId: string; batchId: string; receivedAt: Date; digest: Buffer }): RecordRow;
}

function recordTable(resource: Resource): RecordTable {
  const idColumn = ID_FIELD[resource];
  const typed = TYPED_COLUMNS[resource];
  const typedNames = [...typed.top, ...(typed.nested?.fields ?? [])];
  const table = `ingest_${resource}`;
  const columnSet = new pgp.helpers.ColumnSet(
    [
      'site_id',
      idColumn,
      'revision',
      'source',
      'occurred_at',
      ...typedNames,
      'record',
      'content_digest',
      'batch_id',
      'received_at',
    ],
    { table },
  );
  // Columns the batch row supplies; every other one is the record's field of the same name (or
  // of its nested object), read with ->> and cast to the column's type. Not
  // jsonb_populate_record: it converts every column of the table's row type, and a second one
  // for the nested object, which cost PostgreSQL about 2.5 µs more per event (issue 21).
  const field = (n: string): string => {
    const json = typed.nested?.fields.includes(n) ? `x.j -> ${pgp.as.text(typed.nested.object)}` : 'x.j';
    const text = `${json} ->> ${pgp.as.text(n)}`;
    return n in COLUMN_TYPES ? `(${text})::${COLUMN_TYPES[n]}` : text;
  };
  const fromBatch: Record<string, string> = {
    site_id: 'b.site_id',
    record: 'x.j',
    // A json element keeps its text as stored: the record's canonical JSON, as digested in canonical.ts.
    content_digest: "sha256(convert_to(e.rec::text, 'UTF8'))",
    batch_id: 'b.batch_id',
    received_at: 'b.received_at',
  };
  const names = columnSet.columns.map((c) => c.name);
  return {
    resource,
    table,
    idColumn,
    columnSet,
    assignments: columnSet.assignColumns({ from: 'EXCLUDED', skip: ['site_id', idColumn] }),
    fromPayload: {
      columns: names.map((n) => pgp.as.name(n)).join(', '),
      select: names.map((n) => fromBatch[n] ?? field(n)).join(', '),
      id: field(idColumn),
    },
    toRow(record, meta) {
      const r = record as Fields;
      const nested = typed.nested ? ((r[typed.nested.object] as Fields | undefined) ?? {}) : {};
      const row: RecordRow = {
        site_id: meta.siteId,
        [idColumn]: r[idColumn],
        revision: r.revision,
        source: r.source,
        occurred_at: r.occurred_at,
        record,
        content_digest: `\\x${meta.digest.toString('hex')}`,
        batch_id: meta.batchId,
        received_at: meta.receivedAt.toISOString(),
      };
      for (const n of typed.top) row[n] = r[n] ?? null;
      for (const n of typed.nested?.fields ?? []) row[n] = nested[n] ?? null;
      return row;
    },
  };
}

export const RECORD_TABLES = Object.fromEntries(RESOURCES.map((r) => [r, recordTable(r)])) as Record<
  Resource,
  RecordTable
>;
