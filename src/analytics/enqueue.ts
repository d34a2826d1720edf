import { JOBS } from '../queues/catalog.ts';
import type { QueueRegistry } from '../queues/registry.ts';

/**
 * Rollup jobs are coalesced per site over slots of this length: the batches of one slot
 * share one job, run just after the slot ends. @defaultValue 1000
 */
export const ROLLUP_SLOT_MS = 1000;

/**
 * Schedules a rollup of each site for the end of the current slot. BullMQ keeps one job per
 * (site, slot) id, so a burst of batches costs one recompute; the job runs after its slot has
 * closed, so it sees every change whose enqueue landed in that slot, and a change arriving
 * later falls in a later slot with its own job.
 */
export async function enqueueRollups(
  queues: QueueRegistry,
  siteIds: readonly string[],
  now = Date.now(),
): Promise<void> {
  if (!siteIds.length) return;
  const def = JOBS.rollupSite;
  const slot = Math.floor(now / ROLLUP_SLOT_MS);
  // A little past the slot's end, for clock skew between the hosts that enqueue.
  const delay = (slot + 1) * ROLLUP_SLOT_MS - now + 50;
  await queues.get(def.queue).addBulk(
    siteIds.map((site_id) => {
      const data = { site_id, slot };
      return { name: def.name, data, opts: { ...def.options, jobId: def.jobId(data), delay } };
    }),
  );
}
