import PQueue from 'p-queue';
import { pgp, type Db } from '../db/connection.ts';
import { applyTxSettings, type Queryable } from './repo.ts';

const READ_SNAPSHOT = new pgp.txMode.TransactionMode({
  tiLevel: pgp.txMode.isolationLevel.repeatableRead,
  readOnly: true,
});

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

/** The most connections one read takes at once (SharedSnapshots.read). */
const MAX_LANES = 3;

/**
 * Reads on several connections at once, all in one snapshot: the first lane's transaction
 * exports its snapshot (pg_export_snapshot) and each other lane's imports it before its first
 * query, so every lane sees exactly the same committed data, as one transaction would, in the
 * time of the slowest lane instead of all of them. One per pool (the front door's in AppContext).
 */
export class SharedSnapshots {
  // A read holds its first connection while it waits for its others. Letting only as many reads
  // start as can all hold their every lane at once (pool ÷ lanes) means no read ever waits on
  // another read for a connection: no deadlock, whatever the mix of reads.
  private readonly queue: PQueue;
  private readonly lanes: number;

  constructor(private readonly db: Db) {
    const pool = db.$pool.options.max ?? 10;
    this.lanes = Math.max(1, Math.min(MAX_LANES, pool));
    this.queue = new PQueue({ concurrency: Math.max(1, Math.floor(pool / this.lanes)) });
  }

  /**
   * `read` gets `lanes` transactions, fewer on a pool too small for them (at least one), and
   * must work with any number. Settles once every lane has ended: none is left querying a
   * released connection.
   */
  read<T>(lanes: number, read: (t: readonly Queryable[]) => Promise<T>): Promise<T> {
    const db = this.db;
    return this.queue.add(() =>
      inSnapshot(db, async (first) => {
        const { snapshot } = await first.one<{ snapshot: string }>('SELECT pg_export_snapshot() AS snapshot');
        let finish!: () => void;
        const finished = new Promise<void>((resolve) => (finish = resolve));
        const others = Array.from({ length: Math.min(lanes, this.lanes) - 1 }, () => {
          let open!: (t: Queryable) => void;
          const opened = new Promise<Queryable>((resolve) => (open = resolve));
          // Stays open, handed to `read`, until `read` has settled.
          const ended = db.tx({ mode: READ_SNAPSHOT }, async (t) => {
            // Must precede every query of the transaction.
            await t.none('SET TRANSACTION SNAPSHOT $1', [snapshot]);
            await applyTxSettings(t);
            open(t);
            await finished;
          });
          return {
            opened: Promise.race([
              opened,
              ended.then((): never => {
                throw new Error('snapshot lane ended before it opened');
              }),
            ]),
            ended,
          };
        });
        try {
          return await read([first, ...(await Promise.all(others.map((o) => o.opened)))]);
        } finally {
          finish();
          await Promise.allSettled(others.map((o) => o.ended));
        }
      }),
    ) as Promise<T>;
  }
}
