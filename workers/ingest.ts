import { enqueueRollups, ROLLUP_SLOT_MS } from '../src/analytics/enqueue.ts';
import { applyBatch } from '../src/ingest/apply.ts';
import { startSweeper } from '../src/ingest/sweeper.ts';
import { countRejectedBatch } from '../src/metrics/batch-rejections.ts';
import { INGEST_QUEUE } from '../src/queues/catalog.ts';
import type { QueueRegistry } from '../src/queues/registry.ts';
import type { QueueWorker } from './definition.ts';

/**
 * The rollup slot this process last scheduled for each site, per queue registry. Asking again
 * within the slot names the same job, which BullMQ ignores, at the price of a Redis round
 * trip per batch.
 */
const scheduled = new WeakMap<QueueRegistry, Map<string, number>>();
// One entry per site; forgetting them all now and then costs one extra enqueue each.
const SCHEDULED_MAX = 10_000;

async function requestRollup(queues: QueueRegistry, siteId: string): Promise<void> {
  let slots = scheduled.get(queues);
  if (!slots) scheduled.set(queues, (slots = new Map()));
  const now = Date.now();
  const slot = Math.floor(now / ROLLUP_SLOT_MS);
  if (slots.get(siteId) === slot) return;
  await enqueueRollups(queues, [siteId], now);
  if (slots.size >= SCHEDULED_MAX) slots.clear();
  slots.set(siteId, slot);
}

/** Applies ingest batches stored by the front door (src/ingest/apply.ts). */
export const ingestWorker: QueueWorker<typeof INGEST_QUEUE> = {
  queue: INGEST_QUEUE,
  handlers: {
    async ingestApply(p, job, ctx) {
      const outcome = await applyBatch(ctx.db, { siteId: p.site_id, resource: p.resource, batchId: p.batch_id });
      // The batch's hours are already marked dirty by its transaction; this only asks for them to be folded in soon.
      if (outcome.status === 'completed' && outcome.applied > 0) await requestRollup(ctx.queues, p.site_id);
      // The rejection is committed; a lost count must not make the job apply it again.
      if (outcome.status === 'rejected') await countRejectedBatch(ctx.redis, ctx.config.QUEUE_PREFIX, outcome.problem.code).catch((err) => ctx.log.warn({ err }, 'batch rejection not counted'));
      ctx.log.info({ jobId: job.id, resource: p.resource, batchId: p.batch_id, siteId: p.site_id, ...outcome, ...('problem' in outcome ? { problem: outcome.problem.code } : {}) }, 'ingest batch processed');
      return outcome.status;
    },
  },
  onStart: async (ctx) => startSweeper(ctx),
  // A batch applies in well under a second; a short lock lets a job whose worker was killed
  // be picked up again within seconds instead of BullMQ's default 30.
  options: { lockDuration: 10_000, stalledInterval: 5_000 },
};
