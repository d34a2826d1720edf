import PQueue from 'p-queue';
import { pgp, type Db } from '../db/connection.ts';
import { applyTxSettings, type Queryable } from './repo.ts';

const READ_SNAPSHOT = new pgp.txMode.TransactionMode({ tiLevel: pgp.txMode.isolationLevel.repeatableRead, readOnly: true });

/**
 * Reads in one read-only transaction: one snapshot, so everything read agrees, under
 * sql/analytics/tx-settings.sql.
 */
export function inSnapshot<T>(db: Db, read: (t: Queryable) => Promise<T>): Promise<T> {
  return db.tx({ mode: READ_SNAPSHOT }, async (t) => {
    await applyTxSettings(t);
    return read(t);
  });
}

// A pair holds its first connection while it waits for its second. Letting at most half the
// pool do so leaves the other half for second lanes (which wait for nothing), so pairs can
// never take every connection and wait on each other.
const gates = new WeakMap<Db, PQueue>();

function gate(db: Db): PQueue {
  let g = gates.get(db);
  if (!g) gates.set(db, (g = new PQueue({ concurrency: Math.max(1, Math.floor((db.$pool.options.max ?? 10) / 2)) })));
  return g;
}

/**
 * Two lanes of reads on two connections at once, both in the same snapshot: the first lane's
 * transaction exports its snapshot (pg_export_snapshot) and the second imports it before its
 * first query, so the two see exactly the same committed data, as one transaction would, in
 * the time of the slower lane instead of both. The second lane may await the first's result.
 * Settles once both lanes have ended (neither is left querying a released connection).
 */
export function inSharedSnapshot<A, B>(db: Db, first: (t: Queryable) => Promise<A>, second: (t: Queryable, a: Promise<A>) => Promise<B>): Promise<[A, B]> {
  return gate(db).add(() =>
    inSnapshot(db, async (ta) => {
      const { snapshot } = await ta.one<{ snapshot: string }>('SELECT pg_export_snapshot() AS snapshot');
      const a = first(ta);
      const b = db.tx({ mode: READ_SNAPSHOT }, async (tb) => {
        // Must precede every query of the transaction.
        await tb.none('SET TRANSACTION SNAPSHOT $1', [snapshot]);
        await applyTxSettings(tb);
        return second(tb, a);
      });
      const [ra, rb] = await Promise.allSettled([a, b]);
      if (ra.status === 'rejected') throw ra.reason;
      if (rb.status === 'rejected') throw rb.reason;
      return [ra.value, rb.value] as [A, B];
    }),
  ) as Promise<[A, B]>;
}
