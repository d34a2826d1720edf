import path from 'node:path';
import type { QueryFile } from 'pg-promise';
import { PACKAGE_ROOT } from '../shared/package-root.ts';
import { pgp } from './connection.ts';

/** Root of the hand-written SQL (`sql/` at the package top). */
export const SQL_ROOT = path.join(PACKAGE_ROOT, 'sql') + path.sep;

/**
 * Loads `sql/<relative>` once as a pg-promise QueryFile. A file with a syntax pg-promise
 * cannot pre-format throws at import time, so a broken query never reaches a request.
 */
export function sqlFile(relative: string): QueryFile {
  const qf = new pgp.QueryFile(path.join(SQL_ROOT, relative), { minify: true });
  if (qf.error) throw qf.error;
  flatten(qf);
  return qf;
}

type Formattable = { [toPostgres: symbol]: (self: QueryFile) => string };

/**
 * pg-minify builds the text a character at a time, which V8 keeps as a chain of one-character
 * pieces (32 bytes each) until something reads the string whole, as sending it first does:
 * 2.4 MB over Radar's queries, most of which an idle front door never runs. Reading it once now
 * makes it one flat string (0.2 MB for them all).
 */
function flatten(qf: QueryFile): void {
  (qf as unknown as Formattable)[pgp.as.ctf.toPostgres]!(qf).indexOf('\0');
}
