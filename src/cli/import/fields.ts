import { z } from 'zod';
import type { Resource } from '../../auth/scopes.ts';
import { RECORD_SCHEMAS } from '../../ingest/schemas.ts';

/** How a CSV cell becomes a field value: numbers are numbers, an empty nullable cell is null. */
export interface FieldKind {
  number: boolean;
  nullable: boolean;
}

function kindOf(schema: z.ZodType): FieldKind {
  let s = schema;
  let nullable = false;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable) {
    if (s instanceof z.ZodNullable) nullable = true;
    s = s.def.innerType as z.ZodType;
  }
  return { number: s instanceof z.ZodNumber, nullable };
}

/**
 * The kind of every field of a family by its CSV column name (`properties.channel` for a
 * nested one), read from the ingest schema: the same names an export's CSV header has, so an
 * exported file imports as it is.
 */
export function fieldKinds(resource: Resource): Map<string, FieldKind> {
  const kinds = new Map<string, FieldKind>();
  for (const [name, field] of Object.entries(RECORD_SCHEMAS[resource].shape)) {
    let inner = field as z.ZodType;
    while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault) inner = inner.def.innerType as z.ZodType;
    if (inner instanceof z.ZodObject) {
      for (const [sub, s] of Object.entries(inner.shape)) kinds.set(`${name}.${sub}`, kindOf(s as z.ZodType));
    } else kinds.set(name, kindOf(field as z.ZodType));
  }
  return kinds;
}

/**
 * A record from one CSV row. An empty cell is an absent field (null where the field is
 * nullable); a column the family does not have is an error, except `received_at`, which an
 * export adds and ingestion sets itself.
 */
export function recordFromCells(
  header: readonly string[],
  cells: readonly string[],
  kinds: ReadonlyMap<string, FieldKind>,
): { record: Record<string, unknown> } | { error: string } {
  if (cells.length !== header.length)
    return { error: `has ${cells.length} fields where the header has ${header.length}` };
  const record: Record<string, unknown> = {};
  for (let i = 0; i < header.length; i++) {
    const column = header[i]!;
    if (column === 'received_at') continue;
    const kind = kinds.get(column);
    if (!kind) return { error: `unknown column "${column}"` };
    const cell = cells[i]!;
    let value: unknown;
    if (cell === '') {
      if (!kind.nullable) continue;
      value = null;
    } else if (kind.number) {
      value = Number(cell);
      if (cell.trim() === '' || Number.isNaN(value)) return { error: `${column}: "${cell}" is not a number` };
    } else value = cell;
    const dot = column.indexOf('.');
    if (dot < 0) record[column] = value;
    else {
      const parent = column.slice(0, dot);
      record[parent] = { ...(record[parent] as object | undefined), [column.slice(dot + 1)]: value };
    }
  }
  return { record };
}
