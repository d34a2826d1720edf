import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, beforeEach, test } from 'node:test';
import { migrate } from '../../src/db/migrate.ts';
import { MigrationMismatchError } from '../../src/errors/migration-error.ts';
import { radar } from '../helpers/cli.ts';
import { testServices, type TestServices } from '../helpers/services.ts';

let svc: TestServices;
before(async () => {
  svc = await testServices();
});
after(() => svc.cleanup());

const FILES = readdirSync(new URL('../../sql/migrations/', import.meta.url))
  .filter((f) => f.endsWith('.sql'))
  .sort();

/** The rows as a freshly migrated database has them. */
beforeEach(async () => {
  await svc.db.none("DELETE FROM schema_migrations WHERE name LIKE '9999%'");
  await svc.db.none(
    "UPDATE schema_migrations SET name = '0006_analytics_four_hour_grain.sql' WHERE name = '0007_analytics_four_hour_grain.sql'",
  );
  await svc.db.none('UPDATE schema_migrations SET checksum = NULL');
  await migrate(svc.config.DATABASE_URL);
});

test('migration files are numbered 0001, 0002, … without gaps or duplicates', () => {
  assert.deepEqual(
    FILES.map((f) => Number(f.slice(0, 4))),
    FILES.map((_, i) => i + 1),
  );
});

test('every applied file is recorded with its SHA-256', async () => {
  const rows = await svc.db.any<{ name: string; checksum: string }>(
    'SELECT name, checksum FROM schema_migrations ORDER BY name',
  );
  assert.deepEqual(
    rows.map((r) => r.name),
    FILES,
  );
  for (const r of rows) assert.match(r.checksum, /^[0-9a-f]{64}$/);
});

test('a database migrated before the renumbering and before checksums applies nothing again', async () => {
  await svc.db.none(
    "UPDATE schema_migrations SET name = '0007_analytics_four_hour_grain.sql' WHERE name = '0006_analytics_four_hour_grain.sql'",
  );
  await svc.db.none('ALTER TABLE schema_migrations DROP COLUMN checksum');
  const r = await migrate(svc.config.DATABASE_URL);
  assert.deepEqual(r.applied, []);
  const rows = await svc.db.any<{ name: string; checksum: string | null }>(
    'SELECT name, checksum FROM schema_migrations ORDER BY name',
  );
  assert.deepEqual(
    rows.map((r) => r.name),
    FILES,
  );
  assert.ok(rows.every((r) => r.checksum !== null));
});

test('a database whose applied migration was edited since is refused, saying what to do', async () => {
  await svc.db.none("UPDATE schema_migrations SET checksum = repeat('0', 64) WHERE name = '0003_relay.sql'");
  await assert.rejects(migrate(svc.config.DATABASE_URL), (err: Error) => {
    assert.ok(err instanceof MigrationMismatchError);
    assert.match(err.message, /were edited since \(0003_relay\.sql\): restore them .* new migration/);
    return true;
  });
  const cli = await radar(['migrate'], { DATABASE_URL: svc.config.DATABASE_URL, LOG_LEVEL: 'silent' });
  assert.equal(cli.code, 1);
  assert.match(cli.stderr, /^radar: migrations already applied to this database were edited since \(0003_relay\.sql\)/);
  assert.doesNotMatch(cli.stderr, /\n\s+at /, 'a message, not a stack trace');
});

test('a database ahead of the code is refused, saying what to do', async () => {
  await svc.db.none(
    "INSERT INTO schema_migrations(name, checksum) VALUES ('9999_from_the_future.sql', repeat('0', 64))",
  );
  await assert.rejects(
    migrate(svc.config.DATABASE_URL),
    /has migrations this code does not have \(9999_from_the_future\.sql\): it was migrated by a newer Radar/,
  );
});
