import { produceExport } from '../src/exports/produce.ts';
import { expireExports, failExport, findExportById, unfinishedExports } from '../src/exports/repo.ts';
import { EXPORTS_QUEUE, enqueueMany, JOBS } from '../src/queues/catalog.ts';
import type { QueueWorker } from './definition.ts';

/** How often expired export files are looked for. */
const SWEEP_EVERY_MS = 60_000;

/** Exports of records and analytics into files kept for EXPORT_TTL_HOURS (src/exports). */
export const exportsWorker: QueueWorker<typeof EXPORTS_QUEUE> = {
  queue: EXPORTS_QUEUE,
  handlers: {
    async exportRun({ export_id }, job, ctx) {
      const row = await findExportById(ctx.db, export_id);
      if (!row || (row.status !== 'queued' && row.status !== 'running')) return 'skipped';
      try {
        const outcome = await produceExport(ctx.db, row, {
          ttlHours: ctx.config.EXPORT_TTL_HOURS,
          defaultTz: ctx.config.RADAR_TZ,
        });
        ctx.log.info({ jobId: job.id, exportId: export_id, siteId: row.site_id, ...outcome }, 'export made');
        return outcome ? 'completed' : 'skipped';
      } catch (err) {
        // The last attempt says why on the export, so its page does not show "running" for ever.
        if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
          await failExport(ctx.db, export_id, { code: 'export_failed', detail: (err as Error).message });
        }
        throw err;
      }
    },
    async exportSweep(_data, job, ctx) {
      const expired = await expireExports(ctx.db);
      if (expired) ctx.log.info({ jobId: job.id, expired }, 'expired export files deleted');
      return expired;
    },
  },
  // Exports are long reads; two at once per process leave room for the other queues.
  concurrency: () => 2,
  async onStart(ctx) {
    const queue = ctx.queues.get(EXPORTS_QUEUE);
    await queue.upsertJobScheduler(
      'exports-sweep',
      { every: SWEEP_EVERY_MS },
      { name: JOBS.exportSweep.name, data: {}, opts: JOBS.exportSweep.options },
    );
    const ids = await unfinishedExports(ctx.db);
    await enqueueMany(
      ctx.queues,
      JOBS.exportRun,
      ids.map((export_id) => ({ export_id })),
    );
  },
};
