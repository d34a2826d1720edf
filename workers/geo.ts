import { auditPage } from '../src/geo/audit/audit.ts';
import { findAudit, findConfig, finishAudit, insertRun } from '../src/geo/repo.ts';
import { executeRun } from '../src/geo/run.ts';
import { applySchedule, restoreGeoJobs } from '../src/geo/schedule.ts';
import { GEO_QUEUE } from '../src/queues/catalog.ts';
import type { QueueWorker } from './definition.ts';

/** GEO runs (manual and scheduled) and page audits (src/geo). */
export const geoWorker: QueueWorker<typeof GEO_QUEUE> = {
  queue: GEO_QUEUE,
  handlers: {
    async geoRun({ run_id }, job, ctx) {
      const outcome = await executeRun(ctx, run_id);
      ctx.log.info({ jobId: job.id, runId: run_id, ...outcome }, 'GEO run finished');
      return outcome?.status ?? 'skipped';
    },
    async geoScheduledRun({ site_id }, job, ctx) {
      const config = await findConfig(ctx.db, site_id);
      if (!config?.schedule) {
        // The schedule was turned off but its scheduler outlived it (Redis was unreachable then).
        await applySchedule(ctx.queues, site_id, null, ctx.config.RADAR_TZ);
        return 'unscheduled';
      }
      // The slot the scheduler fired for; a slot delivered twice makes one run.
      const slot = new Date(job.opts.prevMillis ?? job.timestamp);
      const runId = await insertRun(ctx.db, {
        siteId: site_id,
        trigger: 'schedule',
        scheduledFor: slot,
        models: config.models,
      });
      const outcome = await executeRun(ctx, runId);
      ctx.log.info({ jobId: job.id, runId, siteId: site_id, ...outcome }, 'scheduled GEO run finished');
      return outcome?.status ?? 'skipped';
    },
    async geoAudit({ audit_id }, job, ctx) {
      const audit = await findAudit(ctx.db, audit_id);
      if (audit?.status !== 'running') return 'skipped';
      const outcome = await auditPage(audit.url, { allowPrivate: ctx.config.GEO_AUDIT_ALLOW_PRIVATE_HOSTS });
      await finishAudit(ctx.db, audit_id, outcome);
      ctx.log.info(
        { jobId: job.id, auditId: audit_id, status: outcome.status, score: outcome.score, error: outcome.error },
        'GEO audit finished',
      );
      return outcome.status;
    },
  },
  async onStart(ctx) {
    await restoreGeoJobs(ctx.db, ctx.queues, ctx.config.RADAR_TZ);
  },
};
