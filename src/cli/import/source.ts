import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { FieldKind } from './fields.ts';
import { recordFromCells } from './fields.ts';

/** One input row: the record it holds, or why it holds none; `line` is where it starts (1-based). */
export type InputRow = { line: number; record: Record<string, unknown> } | { line: number; error: string };

/**
 * A file's identity and size in one read: the SHA-256 of its bytes (so the same content
 * imported again forms the same batch ids, wherever the file lives) and its line count (the
 * progress total; exact for NDJSON, for CSV unless cells hold line breaks).
 */
export async function fileIdentity(path: string): Promise<{ digest: string; lines: number }> {
  const hash = createHash('sha256');
  let lines = 0;
  let last = 0x0a;
  for await (const piece of createReadStream(path)) {
    const buf = piece as Buffer;
    hash.update(buf);
    for (let i = buf.indexOf(0x0a); i >= 0; i = buf.indexOf(0x0a, i + 1)) lines++;
    if (buf.length) last = buf[buf.length - 1]!;
  }
  return { digest: hash.digest('hex'), lines: last === 0x0a ? lines : lines + 1 };
}

/** The rows of a CSV file with a header row naming the fields (dot paths for nested ones). */
export async function* csvRows(input: Readable, kinds: ReadonlyMap<string, FieldKind>): AsyncGenerator<InputRow> {
  const parser = input.pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, info: true }));
  let header: string[] | null = null;
  for await (const { record: cells, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    if (!header) {
      header = cells.map((c) => c.trim());
      continue;
    }
    const r = recordFromCells(header, cells, kinds);
    yield 'record' in r ? { line: info.lines, record: r.record } : { line: info.lines, error: r.error };
  }
}

/** The rows of an NDJSON file: one JSON object per non-empty line. */
export async function* ndjsonRows(input: Readable): AsyncGenerator<InputRow> {
  let line = 0;
  for await (const text of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    line++;
    if (!text.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      yield { line, error: `not JSON: ${(err as Error).message}` };
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) yield { line, error: 'not a JSON object' };
    else yield { line, record: value as Record<string, unknown> };
  }
}
