import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SharedSnapshots } from '../../src/analytics/snapshot.ts';
import { createDb, type Db } from '../../src/db/connection.ts';
import { testServices, type TestServices } from '../helpers/services.ts';

let svc: TestServices;

before(async () => {
  svc = await testServices();
  await svc.db.none('CREATE TABLE ticks (id serial PRIMARY KEY)');
});
after(() => svc.cleanup());

/** What one lane sees: its snapshot and the rows committed in it, read after a pause. */
const look = (t: { one: Db['one'] }) =>
  t.one<{ snap: string; n: number }>(
    'SELECT pg_sleep(0.02), pg_current_snapshot()::text AS snap, (SELECT count(*) FROM ticks)::int AS n',
  );

test('every lane reads one snapshot while other sessions keep committing', async () => {
  const db = createDb({ url: svc.config.DATABASE_URL, poolSize: 4, applicationName: 'radar-test-lanes' });
  const snapshots = new SharedSnapshots(db);
  let writing = true;
  const writer = (async () => {
    while (writing) await svc.db.none('INSERT INTO ticks DEFAULT VALUES');
  })();
  try {
    const before = await svc.db.one<{ n: number }>('SELECT count(*)::int AS n FROM ticks');
    for (let i = 0; i < 10; i++) {
      const seen = await snapshots.read(3, (t) => Promise.all(t.map(look)));
      assert.equal(seen.length, 3);
      for (const s of seen) assert.deepEqual(s, seen[0]);
    }
    const later = await svc.db.one<{ n: number }>('SELECT count(*)::int AS n FROM ticks');
    // The writer committed all along, so independent snapshots would have differed.
    assert.ok(later.n - before.n > 10, `only ${later.n - before.n} commits meanwhile`);
  } finally {
    writing = false;
    await writer;
    await db.$pool.end();
  }
});

test('many reads at once on a small pool all finish, with as many lanes as the pool allows', async () => {
  for (const poolSize of [2, 3]) {
    const db = createDb({ url: svc.config.DATABASE_URL, poolSize, applicationName: 'radar-test-lanes' });
    const snapshots = new SharedSnapshots(db);
    try {
      const reads = await Promise.all(
        Array.from({ length: 8 }, () => snapshots.read(3, (t) => Promise.all(t.map(look)))),
      );
      for (const seen of reads) {
        assert.equal(seen.length, Math.min(3, poolSize));
        for (const s of seen) assert.equal(s.snap, seen[0]!.snap);
      }
    } finally {
      await db.$pool.end();
    }
  }
});

test('a failing lane fails the read, after every lane has ended', async () => {
  const db = createDb({ url: svc.config.DATABASE_URL, poolSize: 2, applicationName: 'radar-test-lanes' });
  const snapshots = new SharedSnapshots(db);
  try {
    let slowEnded = false;
    await assert.rejects(
      snapshots.read(2, ([fast, slow]) =>
        Promise.all([
          fast!.one('SELECT * FROM no_such_table'),
          (async () => {
            await slow!.one('SELECT pg_sleep(0.2)');
            slowEnded = true;
          })(),
        ]),
      ),
      /no_such_table/,
    );
    assert.ok(slowEnded);
    // Both connections went back to the pool in a usable state.
    assert.deepEqual(await Promise.all([db.one('SELECT 1 AS x'), db.one('SELECT 2 AS x')]), [{ x: 1 }, { x: 2 }]);
  } finally {
    await db.$pool.end();
  }
});
