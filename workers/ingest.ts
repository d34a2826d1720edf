import { enqueueRollups, ROLLUP_SLOT_MS } from '../src/analytics/enqueue.ts';
import { applyBatch } from '../src/ingest/apply.ts';
import { startSweeper } from '../src/ingest/sweeper.ts';
import { countRejectedBatch } from '../src/metrics/batch-rejections.ts';
import { INGEST_QUEUE } from '../src/queues/catalog.ts';
import type { QueueRegistry } from '../src/queues/registry.ts';
import type { QueueWorker } from './definition.ts';

// One entry per site; forgetting them all now and then costs one extra enqueue each.
const SCHEDULED_MAX = 10_000;

/**
 * Asks for a site's rollup once per coalescing slot: remembers the slot this process last
 * scheduled for each site. Asking again within the slot names the same job, which BullMQ
 * ignores, at the price of a Redis round trip per batch.
 */
export class RollupRequests {
  private readonly scheduled = new Map<string, number>();

  constructor(private readonly queues: QueueRegistry) {}

  async request(siteId: string): Promise<void> {
    const now = Date.now();
    const slot = Math.floor(now / ROLLUP_SLOT_MS);
    if (this.scheduled.get(siteId) === slot) return;
    await enqueueRollups(this.queues, [siteId], now);
    if (this.scheduled.size >= SCHEDULED_MAX) this.scheduled.clear();
    this.scheduled.set(siteId, slot);
  }
}

/** Applies ingest batches stored by the front door (src/ingest/apply.ts). */
export const ingestWorker: QueueWorker<typeof INGEST_QUEUE> = {
  queue: INGEST_QUEUE,
  handlers: {
    async ingestApply(p, job, ctx) {
      const outcome = await applyBatch(ctx.db, { siteId: p.site_id, resource: p.resource, batchId: p.batch_id });
      // The batch's hours are already marked dirty by its transaction; this only asks for them to be folded in soon.
      if (outcome.status === 'completed' && outcome.applied > 0) await ctx.rollupRequests.request(p.site_id);
      // The rejection is committed; a lost count must not make the job apply it again.
      if (outcome.status === 'rejected')
        await countRejectedBatch(ctx.redis, ctx.config.QUEUE_PREFIX, outcome.problem.code).catch((err) =>
          ctx.log.warn({ err }, 'batch rejection not counted'),
        );
      ctx.log.info(
        {
          jobId: job.id,
          resource: p.resource,
          batchId: p.batch_id,
          siteId: p.site_id,
          ...outcome,
          ...('problem' in outcome ? { problem: outcome.problem.code } : {}),
        },
        'ingest batch processed',
      );
      return outcome.status;
    },
  },
  onStart: async (ctx) => startSweeper(ctx),
  // A batch applies in well under a second; a short lock lets a job whose worker was killed
  // be picked up again within seconds instead of BullMQ's default 30.
  options: { lockDuration: 10_000, stalledInterval: 5_000 },
};
