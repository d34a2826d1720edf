import type { Db } from '../db/connection.ts';
import { dependentHours, applyTxSettings, drainDirtyHours, lockSiteRollup, recomputeHours } from './repo.ts';

export interface RollupOutcome {
  /** Hours whose raw records changed. */
  dirty: number;
  /** Hours recomputed: the dirty ones and those depending on them. */
  recomputed: number;
}

/**
 * Folds every pending change of a site into its rollups, in one transaction under the site's
 * advisory lock: concurrent rollups of one site (any host) queue behind each other, and a
 * failure leaves the hours dirty for the next attempt. Recomputing is delete-and-insert of
 * whole hours from the raw records, so running it again, or late, is always safe.
 */
export function rollupSite(db: Db, siteId: string): Promise<RollupOutcome> {
  return db.tx('analytics-rollup', async (t) => {
    await applyTxSettings(t);
    await lockSiteRollup(t, siteId);
    const dirty = await drainDirtyHours(t, siteId);
    if (!dirty.length) return { dirty: 0, recomputed: 0 };
    const hours = [...dirty, ...(await dependentHours(t, siteId, dirty))];
    await recomputeHours(t, siteId, hours);
    return { dirty: dirty.length, recomputed: hours.length };
  });
}
