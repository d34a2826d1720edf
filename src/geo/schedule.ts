import { enqueueMany, JOBS } from '../queues/catalog.ts';
import type { QueueRegistry } from '../queues/registry.ts';
import type { Db } from '../db/connection.ts';
import { listScheduledConfigs, listUnfinished } from './repo.ts';
import type { GeoSchedule } from './schemas.ts';

/**
 * Installs, replaces or (with `null`) removes a site's BullMQ job scheduler. Each slot it
 * fires becomes a `geo.scheduled-run` job, which the worker turns into one run per slot.
 */
export async function applySchedule(
  queues: QueueRegistry,
  siteId: string,
  schedule: GeoSchedule | null,
  defaultTz: string,
): Promise<void> {
  const def = JOBS.geoScheduledRun;
  const data = { site_id: siteId };
  const queue = queues.get(def.queue);
  if (!schedule) {
    await queue.removeJobScheduler(def.jobId(data));
    return;
  }
  await queue.upsertJobScheduler(
    def.jobId(data),
    { pattern: schedule.cron, tz: schedule.tz ?? defaultTz },
    { name: def.name, data, opts: def.options },
  );
}

/**
 * What a worker does when it starts serving the geo queue: makes every stored schedule a
 * scheduler again (a flushed Redis loses them) and enqueues unfinished runs and audits again.
 * Job ids are deterministic, so work whose job still exists is not enqueued twice.
 */
export async function restoreGeoJobs(db: Db, queues: QueueRegistry, defaultTz: string): Promise<void> {
  for (const c of await listScheduledConfigs(db)) await applySchedule(queues, c.site_id, c.schedule, defaultTz);
  const open = await listUnfinished(db);
  await enqueueMany(
    queues,
    JOBS.geoRun,
    open.filter((o) => o.kind === 'run').map((o) => ({ run_id: o.id })),
  );
  await enqueueMany(
    queues,
    JOBS.geoAudit,
    open.filter((o) => o.kind === 'audit').map((o) => ({ audit_id: o.id })),
  );
}
