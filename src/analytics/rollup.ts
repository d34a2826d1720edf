import { pgp, type Db } from '../db/connection.ts';
import {
  applyTxSettings,
  drainDirtyHours,
  foldPending,
  lockSiteRollup,
  rebuildHours,
  rebuildLevels,
  unlockSiteRollup,
} from './repo.ts';

export interface RollupOutcome {
  /** Hours of revised records, rebuilt from the raw records. */
  dirty: number;
  /** Quarter hours the pending changes were folded into. */
  folded: number;
}

const HOUR = 3_600_000;

// One snapshot for the whole fold: the pending changes it reads, the raw records it looks up and
// the pending rows it deletes are the same batches (migration 0017).
const FOLD = new pgp.txMode.TransactionMode({ tiLevel: pgp.txMode.isolationLevel.repeatableRead });

/**
 * Folds every pending change of a site into its rollups, in one transaction under the site's
 * advisory lock: concurrent folds of one site (any host) queue behind each other, and a
 * failure leaves everything pending for the next attempt. Hours of revised records are rebuilt
 * from the raw records; everything else costs what arrived: the pending deltas are added to
 * the quarter hours, and the coarser buckets over them are re-summed from the finer rollups.
 * With `wait` false, a fold already running makes this one return null at once instead of
 * queueing (and holding a connection) behind it.
 */
export function rollupSite(db: Db, siteId: string, wait: false): Promise<RollupOutcome | null>;
export function rollupSite(db: Db, siteId: string, wait?: true): Promise<RollupOutcome>;
export function rollupSite(db: Db, siteId: string, wait = true): Promise<RollupOutcome | null> {
  return db.task('analytics-rollup', async (task) => {
    // Taken before the transaction, so its snapshot starts after the previous fold's commit.
    if (!(await lockSiteRollup(task, siteId, wait))) return null;
    try {
      return await task.tx({ mode: FOLD }, async (t) => {
        await applyTxSettings(t);
        const dirty = await drainDirtyHours(t, siteId);
        if (dirty.length) await rebuildHours(t, siteId, dirty);
        const folded = await foldPending(t, siteId, dirty);
        const hours = new Set([...dirty, ...folded].map((d) => Math.floor(d.getTime() / HOUR) * HOUR));
        if (hours.size)
          await rebuildLevels(
            t,
            siteId,
            [...hours].map((h) => new Date(h)),
          );
        return { dirty: dirty.length, folded: new Set(folded.map((d) => d.getTime())).size };
      });
    } finally {
      await unlockSiteRollup(task, siteId);
    }
  });
}
