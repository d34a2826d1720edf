import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RESOURCES } from '../../src/auth/scopes.ts';
import { COLUMN_TYPES, RECORD_TABLES } from '../../src/ingest/tables.ts';
import { testServices, type TestServices } from '../helpers/services.ts';

let services: TestServices;
before(async () => {
  services = await testServices();
});
after(() => services.cleanup());

test('each record table has exactly the columns the upsert writes, keyed (site_id, record id)', async () => {
  for (const r of RESOURCES) {
    const t = RECORD_TABLES[r];
    const cols = await services.db.any<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position",
      [t.table],
    );
    assert.deepEqual(cols.map((c) => c.column_name).sort(), t.columnSet.columns.map((c) => c.name).sort(), t.table);
    const pk = await services.db.one<{ def: string }>(
      "SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'",
      [t.table],
    );
    assert.equal(pk.def, `PRIMARY KEY (site_id, ${t.idColumn})`);
  }
});

test('every column read from a record has the type the apply casts its field to (text unless COLUMN_TYPES says)', async () => {
  const fromBatch = new Set(['site_id', 'record', 'content_digest', 'batch_id', 'received_at']);
  for (const r of RESOURCES) {
    const t = RECORD_TABLES[r];
    const fields = t.columnSet.columns.map((c) => c.name).filter((n) => !fromBatch.has(n));
    const wrong = await services.db.any<{ name: string }>(
      `SELECT f.name FROM unnest($2::text[], $3::text[]) AS f(name, type)
       JOIN pg_attribute a ON a.attrelid = $1::regclass AND a.attname = f.name
       WHERE a.atttypid <> f.type::regtype`,
      [t.table, fields, fields.map((n) => COLUMN_TYPES[n] ?? 'text')],
    );
    assert.deepEqual(wrong, [], t.table);
  }
});

test('the pending analytics arrays every ingest statement writes are compressed with lz4, not pglz', async () => {
  const cols = await services.db.any<{ col: string; compression: string }>(
    `SELECT a.attrelid::regclass || '.' || a.attname AS col, a.attcompression AS compression
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
     WHERE c.relname LIKE 'analytics\\_pending\\_%' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
       AND a.atttypid IN (SELECT typarray FROM pg_type WHERE typarray <> 0)
     ORDER BY 1`,
  );
  assert.deepEqual(
    cols.map((c) => c.col),
    [
      'analytics_pending_counts.counts',
      'analytics_pending_keys.keys',
      'analytics_pending_keys.ats',
      'analytics_pending_users.buckets',
      'analytics_pending_users.kinds',
      'analytics_pending_users.users',
    ].sort(),
  );
  assert.deepEqual(
    cols.filter((c) => c.compression !== 'l').map((c) => c.col),
    [],
  );
});
