import { rollupSite } from '../src/analytics/rollup.ts';
import { enqueueRollups } from '../src/analytics/enqueue.ts';
import { dirtySites } from '../src/analytics/repo.ts';
import { JOBS, ROLLUP_QUEUE } from '../src/queues/catalog.ts';
import type { QueueWorker } from './definition.ts';

/**
 * Keeps the analytics rollups (src/analytics/rollup.ts) up to date: `rollup.site` after
 * ingest batches, and the `rollup-sweep` scheduler for changes whose job was lost (a worker
 * or Redis died between the ingest commit and the enqueue). The hours to fold in are kept in
 * PostgreSQL (analytics_dirty), so the sweep finds every one of them.
 */
export const rollupWorker: QueueWorker<typeof ROLLUP_QUEUE> = {
  queue: ROLLUP_QUEUE,
  handlers: {
    async rollupSweep(_data, job, ctx) {
      const sites = (await dirtySites(ctx.db)).map((s) => s.site_id);
      await enqueueRollups(ctx.queues, sites);
      // One line per tick for the whole cluster, however many hosts serve the queue.
      ctx.log.info({ jobId: job.id, sites: sites.length }, 'rollup sweep done');
      return sites.length;
    },
    async rollupSite(data, job, ctx) {
      const started = Date.now();
      const outcome = await rollupSite(ctx.db, data.site_id, false);
      if (!outcome) {
        // Another fold of the site is running; what it does not see is folded by the next slot's job.
        await enqueueRollups(ctx.queues, [data.site_id]);
        return null;
      }
      ctx.log.info(
        { jobId: job.id, siteId: data.site_id, ...outcome, ms: Date.now() - started },
        'analytics rollup done',
      );
      return outcome;
    },
  },
  // BullMQ stores one scheduler under this id however many workers upsert it, and delivers
  // one job per tick to one of them.
  onStart: async (ctx) => {
    await ctx.queues.get(ROLLUP_QUEUE).upsertJobScheduler(
      'rollup-sweep',
      { every: ctx.config.ROLLUP_SWEEP_EVERY_MS },
      {
        name: JOBS.rollupSweep.name,
        data: {},
        opts: JOBS.rollupSweep.options,
      },
    );
  },
};
