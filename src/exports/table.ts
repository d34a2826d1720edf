import { z } from 'zod';
import type { Resource } from '../auth/scopes.ts';
import { RECORD_SCHEMAS } from '../ingest/schemas.ts';

type Row = Record<string, unknown>;

/** The schema inside optional/default/nullable wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable)
    s = s.def.innerType as z.ZodType;
  return s;
}

/**
 * The CSV columns of a record family, from its ingest schema: every field in the schema's
 * (sorted) order, a nested object's fields as `object.field`, then `received_at`. Fixed per
 * family, so two exports of it line up whatever their records hold.
 */
export function recordColumns(resource: Resource): string[] {
  const columns: string[] = [];
  for (const [name, field] of Object.entries(RECORD_SCHEMAS[resource].shape)) {
    const inner = unwrap(field as z.ZodType);
    if (inner instanceof z.ZodObject) for (const sub of Object.keys(inner.shape)) columns.push(`${name}.${sub}`);
    else columns.push(name);
  }
  return [...columns, 'received_at'];
}

/** Nested objects and arrays as dot paths: `{a: {b: 1}, c: [2]}` → `{'a.b': 1, 'c.0': 2}`. */
export function flatten(value: Row, prefix = '', out: Row = {}): Row {
  for (const [k, v] of Object.entries(value)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object') flatten(v as Row, key, out);
    else out[key] = v;
  }
  return out;
}

/**
 * The rows of an analytics view's `data`: each element of each list in it (timeseries buckets,
 * acquisition channels and campaigns, funnel steps, retention cohorts) with a `section` naming
 * the list and the view's single values beside it; a view without lists (overview, finance) is
 * one row.
 */
export function viewRows(data: unknown): Row[] {
  if (Array.isArray(data)) return data as Row[];
  const obj = (data ?? {}) as Row;
  const lists = Object.entries(obj).filter(([, v]) => Array.isArray(v)) as [string, Row[]][];
  if (!lists.length) return [obj];
  const single = Object.fromEntries(Object.entries(obj).filter(([, v]) => !Array.isArray(v)));
  return lists.flatMap(([section, items]) => items.map((item) => ({ section, ...single, ...item })));
}

/** The union of the rows' flattened keys, in first-seen order: the header of a view's CSV. */
export function columnsOf(rows: readonly Row[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen];
}

/** One CSV line (RFC 4180): a field is quoted when it holds a comma, quote, CR or LF. */
export function csvLine(columns: readonly string[], row: Row): string {
  let line = '';
  for (let i = 0; i < columns.length; i++) {
    if (i) line += ',';
    line += csvField(row[columns[i] as string]);
  }
  return `${line}\r\n`;
}

function csvField(v: unknown): string {
  if (v === undefined || v === null) return '';
  const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The header line of a CSV. */
export function csvHeader(columns: readonly string[]): string {
  return csvLine(columns, Object.fromEntries(columns.map((c) => [c, c])));
}
