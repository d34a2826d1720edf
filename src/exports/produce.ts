import { ANALYTICS_VIEWS } from '../analytics/routes.ts';
import { SharedSnapshots } from '../analytics/snapshot.ts';
import { resolveWindow } from '../analytics/window.ts';
import type { Db } from '../db/connection.ts';
import { countRecords, recordsAfter, type RecordCursor } from '../records/repo.ts';
import { appendChunk, completeExport, startExport } from './repo.ts';
import type { ExportRequest, ExportRow } from './schemas.ts';
import { columnsOf, csvHeader, csvLine, flatten, recordColumns, viewRows } from './table.ts';

/** A file is stored in chunks of about this size: what the download holds in memory at once. */
const CHUNK_BYTES = 1 << 20;
/** Records read per query. */
const PAGE_ROWS = 5000;

/** Appends the file chunk by chunk, each with the progress it brings, in one statement. */
class ChunkWriter {
  rows = 0;
  bytes = 0;
  #parts: string[] = [];
  #length = 0;
  #seq = 0;

  constructor(
    private readonly db: Db,
    private readonly id: string,
  ) {}

  /** Adds `text` holding `rows` rows; writes a chunk once enough has gathered (awaited: the producer waits for PostgreSQL). */
  async write(text: string, rows: number): Promise<void> {
    this.#parts.push(text);
    this.#length += text.length;
    this.rows += rows;
    if (this.#length >= CHUNK_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.#parts.length) return;
    const data = Buffer.from(this.#parts.join(''), 'utf8');
    this.#parts = [];
    this.#length = 0;
    this.bytes += data.length;
    await appendChunk(this.db, this.id, { seq: this.#seq++, data, rowsDone: this.rows, bytes: this.bytes });
  }
}

export interface ExportOutcome {
  rows: number;
  bytes: number;
}

/**
 * Makes the file of one export from scratch (a retried job starts over) and marks it
 * completed, to be kept `ttlHours`. Null when the export is no longer queued or running.
 */
export async function produceExport(
  db: Db,
  row: ExportRow,
  opts: { ttlHours: number; defaultTz: string },
): Promise<ExportOutcome | null> {
  const writer = new ChunkWriter(db, row.id);
  const meta =
    row.request.kind === 'records'
      ? await writeRecords(db, row, row.request, writer)
      : await writeView(db, row, row.request, writer, opts.defaultTz);
  if (meta === undefined) return null;
  await writer.flush();
  await completeExport(db, row.id, { rowsDone: writer.rows, bytes: writer.bytes, meta, ttlHours: opts.ttlHours });
  return { rows: writer.rows, bytes: writer.bytes };
}

/** A record family, page by page in the reads' order; each line as GET /<collection> shows the record. */
async function writeRecords(
  db: Db,
  row: ExportRow,
  request: Extract<ExportRequest, { kind: 'records' }>,
  writer: ChunkWriter,
): Promise<null | undefined> {
  const { resource, format } = request;
  const total = await countRecords(db, resource, row.site_id, request);
  if (!(await startExport(db, row.id, total))) return undefined;
  const columns = recordColumns(resource);
  if (format === 'csv') await writer.write(csvHeader(columns), 0);
  let after: RecordCursor | null = null;
  do {
    const page = await recordsAfter(db, resource, row.site_id, request, after, PAGE_ROWS);
    let text = '';
    for (const r of page.rows) {
      const item = { ...r.record, received_at: r.received_at.toISOString() };
      text += format === 'csv' ? csvLine(columns, flatten(item)) : `${JSON.stringify(item)}\n`;
    }
    await writer.write(text, page.rows.length);
    after = page.next;
  } while (after);
  return null;
}

/**
 * An analytics view computed as GET /analytics/<view> would have at the moment the export was
 * asked for (the default window ends then); its rows per viewRows, its coverage, currencies
 * and freshness kept as the export's `meta`.
 */
async function writeView(
  db: Db,
  row: ExportRow,
  request: Extract<ExportRequest, { kind: 'analytics' }>,
  writer: ChunkWriter,
  defaultTz: string,
): Promise<Record<string, unknown> | undefined> {
  const { kind: _kind, view: name, format, ...query } = request;
  const view = ANALYTICS_VIEWS.find((v) => v.name === name);
  if (!view) throw new Error(`unknown analytics view ${name}`);
  const parsed = view.schema.parse(query);
  const asked = row.created_at.getTime();
  const window = resolveWindow(parsed, defaultTz, asked);
  const answer = await view.run(new SharedSnapshots(db), row.site_id, window, parsed, asked);
  const rows = viewRows(answer.data);
  if (!(await startExport(db, row.id, rows.length))) return undefined;
  if (format === 'ndjson') {
    await writer.write(rows.map((r) => `${JSON.stringify(r)}\n`).join(''), rows.length);
  } else {
    const flat = rows.map((r) => flatten(r));
    const columns = columnsOf(flat);
    await writer.write(csvHeader(columns) + flat.map((r) => csvLine(columns, r)).join(''), rows.length);
  }
  return { coverage: answer.coverage, currencies: answer.currencies, freshness: answer.freshness };
}
