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
  return qf;
}
