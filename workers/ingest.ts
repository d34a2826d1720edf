import { enqueueRollups } from '../src/analytics/enqueue.ts';
import { applyBatch } from '../src/ingest/apply.ts';
import { startSweeper } from '../src/ingest/sweeper.ts';
import { INGEST_QUEUE, jobPayload, JOBS } from '../src/queues/catalog.ts';
import type { QueueWorker } from './definition.ts';

/** Applies ingest batches stored by the front door (src/ingest/apply.ts). */
export const ingestWorker: QueueWorker = {
  queue: INGEST_QUEUE,
  async process(job, ctx) {
    const p = jobPayload(JOBS.ingestApply, job);
    const outcome = await applyBatch(ctx.db, { siteId: p.site_id, resource: p.resource, batchId: p.batch_id });
    // The batch's hours are already marked dirty by its transaction; this only asks for them to be folded in soon.
    if (outcome.status === 'completed' && outcome.applied > 0) await enqueueRollups(ctx.queues, [p.site_id]);
    ctx.log.info({ jobId: job.id, resource: p.resource, batchId: p.batch_id, siteId: p.site_id, ...outcome, ...('problem' in outcome ? { problem: outcome.problem.code } : {}) }, 'ingest batch processed');
    return outcome.status;
  },
  onStart: async (ctx) => startSweeper(ctx),
  // A batch applies in well under a second; a short lock lets a job whose worker was killed
  // be picked up again within seconds instead of BullMQ's default 30.
  options: { lockDuration: 10_000, stalledInterval: 5_000 },
};
