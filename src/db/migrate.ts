import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { MigrationMismatchError } from '../errors/migration-error.ts';
import { createDb, type Db } from './connection.ts';
import { SQL_ROOT } from './sql-file.ts';

const MIGRATIONS_DIR = path.join(SQL_ROOT, 'migrations');
// Any constant works; it only has to be the same for every `radar migrate` on every host.
const MIGRATION_LOCK = 7_246_173;

/**
 * Files renamed after databases recorded them under the old name (old → new): the old
 * numbering had no 0006 and two 0007s. The order they apply in is unchanged.
 */
const RENAMED: Readonly<Record<string, string>> = {
  '0007_analytics_four_hour_grain.sql': '0006_analytics_four_hour_grain.sql',
};

interface Migration {
  name: string;
  text: string;
  checksum: string;
}

async function readMigrations(): Promise<Migration[]> {
  const names = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f)).sort();
  return Promise.all(
    names.map(async (name) => {
      const text = await readFile(path.join(MIGRATIONS_DIR, name), 'utf8');
      return { name, text, checksum: createHash('sha256').update(text).digest('hex') };
    }),
  );
}

/** Refuses a database whose applied migrations this code does not have, or has in another form. */
function checkApplied(
  applied: readonly { name: string; checksum: string | null }[],
  files: readonly Migration[],
): void {
  const byName = new Map(files.map((f) => [f.name, f]));
  const unknown = applied.filter((r) => !byName.has(r.name)).map((r) => r.name);
  if (unknown.length) {
    throw new MigrationMismatchError(
      `the database has migrations this code does not have (${unknown.join(', ')}): it was migrated by a newer Radar. Run that version (or newer), or restore a backup taken before it migrated`,
    );
  }
  const edited = applied
    .filter((r) => r.checksum !== null && r.checksum !== byName.get(r.name)!.checksum)
    .map((r) => r.name);
  if (edited.length) {
    throw new MigrationMismatchError(
      `migrations already applied to this database were edited since (${edited.join(', ')}): restore them as they were applied (git checkout) and put the change in a new migration`,
    );
  }
}

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
 * Applies `sql/migrations/NNNN_name.sql` in order, each once, each in its own transaction, and
 * records each file's SHA-256. Refuses (MigrationMismatchError) a database whose applied files
 * were edited since or that has files this code lacks. An advisory lock makes concurrent runs
 * on several hosts wait for each other instead of racing on the same file.
 */
export async function migrate(url: string): Promise<MigrationResult> {
  const created = await ensureDatabase(url);
  const db: Db = createDb({ url, poolSize: 1, applicationName: 'radar-migrate' });
  try {
    const files = await readMigrations();
    return await db.task(async (t) => {
      await t.one('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      try {
        await t.none(`CREATE TABLE IF NOT EXISTS schema_migrations (
          name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
        // Databases migrated before checksums were recorded: their files are trusted as they are now.
        await t.none('ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text');
        for (const [from, to] of Object.entries(RENAMED)) {
          await t.none('UPDATE schema_migrations SET name = $2 WHERE name = $1', [from, to]);
        }
        const done = await t.any<{ name: string; checksum: string | null }>(
          'SELECT name, checksum FROM schema_migrations',
        );
        checkApplied(done, files);
        for (const r of done.filter((r) => r.checksum === null)) {
          await t.none('UPDATE schema_migrations SET checksum = $2 WHERE name = $1', [
            r.name,
            files.find((f) => f.name === r.name)!.checksum,
          ]);
        }
        const doneNames = new Set(done.map((r) => r.name));
        const applied: string[] = [];
        for (const file of files) {
          if (doneNames.has(file.name)) continue;
          await t.tx(async (tx) => {
            await tx.none(file.text);
            await tx.none('INSERT INTO schema_migrations(name, checksum) VALUES ($1, $2)', [file.name, file.checksum]);
          });
          applied.push(file.name);
        }
        return {
          database: decodeURIComponent(new URL(url).pathname.slice(1)),
          created_database: created,
          applied,
          already_applied: done.length,
        };
      } finally {
        await t.one('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      }
    });
  } finally {
    await db.$pool.end();
  }
}
