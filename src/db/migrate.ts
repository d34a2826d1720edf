import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createDb, type Db } from './connection.ts';
import { SQL_ROOT } from './sql-file.ts';

const MIGRATIONS_DIR = path.join(SQL_ROOT, 'migrations');
// Any constant works; it only has to be the same for every `radar migrate` on every host.
const MIGRATION_LOCK = 7_246_173;

export interface MigrationResult {
  database: string;
  created_database: boolean;
  applied: string[];
  already_applied: number;
}

/** Creates the database named by `url` when it does not exist yet. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!name) throw new Error('DATABASE_URL names no database');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const db = createDb({ url: admin.toString(), poolSize: 1, applicationName: 'radar-migrate' });
  try {
    const exists = await db.oneOrNone('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists) return false;
    try {
      await db.none('CREATE DATABASE $1:name', [name]);
    } catch (err) {
      // Another host's migrate created it between our check and our CREATE.
      if ((err as { code?: string }).code !== '42P04') throw err;
      return false;
    }
    return true;
  } finally {
    await db.$pool.end();
  }
}

/**
 * Applies `sql/migrations/NNNN_name.sql` in order, each once, each in its own transaction.
 * An advisory lock makes concurrent runs on several hosts wait for each other instead of
 * racing on the same file.
 */
export async function migrate(url: string): Promise<MigrationResult> {
  const created = await ensureDatabase(url);
  const db: Db = createDb({ url, poolSize: 1, applicationName: 'radar-migrate' });
  try {
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f)).sort();
    return await db.task(async (t) => {
      await t.one('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      try {
        await t.none(`CREATE TABLE IF NOT EXISTS schema_migrations (
          name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
        const done = new Set((await t.any<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name));
        const applied: string[] = [];
        for (const file of files) {
          if (done.has(file)) continue;
          const text = await readFile(path.join(MIGRATIONS_DIR, file), 'utf8');
          await t.tx(async (tx) => {
            await tx.none(text);
            await tx.none('INSERT INTO schema_migrations(name) VALUES ($1)', [file]);
          });
          applied.push(file);
        }
        return {
          database: decodeURIComponent(new URL(url).pathname.slice(1)),
          created_database: created,
          applied,
          already_applied: done.size,
        };
      } finally {
        await t.one('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      }
    });
  } finally {
    await db.$pool.end();
  }
}

