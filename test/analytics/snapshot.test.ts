import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { inSharedSnapshot } from '../../src/analytics/snapshot.ts';
import { createDb, type Db } from '../../src/db/connection.ts';
import { testServices, type TestServices } from '../helpers/services.ts';

let svc: TestServices;

before(async () => {
  svc = await testServices();
  await svc.db.none('CREATE TABLE ticks (id serial PRIMARY KEY)');
});
after(() => svc.cleanup());

/** What one lane sees: its snapshot and the rows committed in it, read after a pause. */
const look = (t: { one: Db['one'] }) => t.one<{ snap: string; n: number }>('SELECT pg_sleep(0.02), pg_current_snapshot()::text AS snap, (SELECT count(*) FROM ticks)::int AS n');

test('the two lanes read one snapshot while other sessions keep committing', async () => {
  const db = createDb({ url: svc.config.DATABASE_URL, poolSize: 4, applicationName: 'radar-test-lanes' });
  let writing = true;
  const writer = (async () => {
    while (writing) await svc.db.none('INSERT INTO ticks DEFAULT VALUES');
  })();
  try {
    const before = await svc.db.one<{ n: number }>('SELECT count(*)::int AS n FROM ticks');
    for (let i = 0; i < 10; i++) {
      const [a, b] = await inSharedSnapshot(db, look, (t) => look(t));
      assert.equal(b.snap, a.snap);
      assert.equal(b.n, a.n);
    }
    const later = await svc.db.one<{ n: number }>('SELECT count(*)::int AS n FROM ticks');
    // The writer committed all along, so two independent snapshots would have differed.
    assert.ok(later.n - before.n > 10, `only ${later.n - before.n} commits meanwhile`);
  } finally {
    writing = false;
    await writer;
    await db.$pool.end();
  }
});

test('many pairs at once on a small pool all finish: pairs never hold every connection', async () => {
  const db = createDb({ url: svc.config.DATABASE_URL, poolSize: 2, applicationName: 'radar-test-lanes' });
  try {
    const pairs = await Promise.all(Array.from({ length: 8 }, () => inSharedSnapshot(db, look, (t) => look(t))));
    for (const [a, b] of pairs) assert.equal(b.snap, a.snap);
  } finally {
    await db.$pool.end();
  }
});

test('a failing lane fails the pair, after both lanes have ended', async () => {
  const db = createDb({ url: svc.config.DATABASE_URL, poolSize: 2, applicationName: 'radar-test-lanes' });
  try {
    let secondEnded = false;
    await assert.rejects(
      inSharedSnapshot(db, async (t) => {
        await t.one('SELECT pg_sleep(0.1)');
        return t.one('SELECT * FROM no_such_table');
      }, async (t) => {
        await look(t);
        secondEnded = true;
      }),
      /no_such_table/,
    );
    assert.ok(secondEnded);
    // Both connections went back to the pool in a usable state.
    assert.deepEqual(await Promise.all([db.one('SELECT 1 AS x'), db.one('SELECT 2 AS x')]), [{ x: 1 }, { x: 2 }]);
  } finally {
    await db.$pool.end();
  }
});
