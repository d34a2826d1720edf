import { createHash } from 'node:crypto';
import type { Job, JobsOptions } from 'bullmq';
import { z } from 'zod';
import { RESOURCES } from '../auth/scopes.ts';
import { IDENTIFIER_PATTERN } from '../ingest/schemas.ts';
import { UsageJobSchema } from '../relay/usage-job.ts';
import { UnrecoverableError } from './bullmq.ts';
import type { QueueRegistry } from './registry.ts';

/**
 * Every job Radar enqueues: its queue, name, payload schema, identity and options. Producers
 * and processors both go through this catalog, so a payload is typed at both ends and checked
 * where it is consumed.
 */
export interface JobDefinition<S extends z.ZodType> {
  readonly queue: QueueName;
  readonly name: string;
  readonly schema: S;
  /** Same payload, same id: BullMQ stores one job however often it is enqueued. */
  jobId(data: z.output<S>): string;
  readonly options: Omit<JobsOptions, 'jobId'>;
}

/**
 * A jobId from the parts that identify the work. BullMQ refuses `:` in custom ids and
 * reserves integer-like ids for its own counter; a named prefix and base64url avoid both.
 */
export function deterministicJobId(name: string, parts: readonly string[]): string {
  return `${name}-${createHash('sha256').update(parts.join('\n')).digest('base64url')}`;
}

export const INGEST_QUEUE = 'ingest';
export const ROLLUP_QUEUE = 'rollup';
export const GEO_QUEUE = 'geo';
/** Metered relay calls (src/relay/meter.ts). */
export const USAGE_QUEUE = 'usage';

/** Exports of records and analytics into files (src/exports). */
export const EXPORTS_QUEUE = 'exports';

/** Every BullMQ queue, also the names `radar work --queues` accepts. */
export const QUEUES = [INGEST_QUEUE, ROLLUP_QUEUE, USAGE_QUEUE, GEO_QUEUE, EXPORTS_QUEUE] as const;
export type QueueName = (typeof QUEUES)[number];

const IngestApplyPayload = z.strictObject({
  site_id: z.uuid(),
  resource: z.enum(RESOURCES),
  batch_id: z.string().regex(IDENTIFIER_PATTERN),
});

const RollupSitePayload = z.strictObject({
  site_id: z.uuid(),
  /** The coalescing slot the job was enqueued in (src/analytics/enqueue.ts). */
  slot: z.int().nonnegative(),
});
const RollupSweepPayload = z.strictObject({});

const GeoRunPayload = z.strictObject({ run_id: z.uuid() });
const ExportRunPayload = z.strictObject({ export_id: z.uuid() });
const ExportSweepPayload = z.strictObject({});
const GeoScheduledRunPayload = z.strictObject({ site_id: z.uuid() });
const GeoAuditPayload = z.strictObject({ audit_id: z.uuid() });

export const JOBS = {
  /** Applies one stored batch (workers/ingest.ts). */
  ingestApply: {
    queue: INGEST_QUEUE,
    name: 'ingest.apply',
    schema: IngestApplyPayload,
    jobId: (d) => deterministicJobId('ingest.apply', [d.site_id, d.resource, d.batch_id]),
    options: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: true,
      // A failed job must not keep its id: the ingest sweeper re-enqueues the batch later
      // under the same id, and BullMQ would treat it as a duplicate of the failed one.
      removeOnFail: true,
    },
  } satisfies JobDefinition<typeof IngestApplyPayload>,
  /** Asks every prompt of every model of one GEO run (workers/geo.ts). */
  geoRun: {
    queue: GEO_QUEUE,
    name: 'geo.run',
    schema: GeoRunPayload,
    jobId: (d) => deterministicJobId('geo.run', [d.run_id]),
    // Answers already stored are not asked again, so a retry costs only what failed with the
    // worker; removeOnFail lets the worker-start recovery enqueue the run again.
    options: { attempts: 3, backoff: { type: 'exponential', delay: 5000 }, removeOnComplete: true, removeOnFail: true },
  } satisfies JobDefinition<typeof GeoRunPayload>,
  /**
   * A site's scheduled GEO run, made by its BullMQ job scheduler; `jobId` is the scheduler's
   * id (src/geo/schedule.ts), as BullMQ names each delivered job after it.
   */
  geoScheduledRun: {
    queue: GEO_QUEUE,
    name: 'geo.scheduled-run',
    schema: GeoScheduledRunPayload,
    jobId: (d) => `geo-run-${d.site_id}`,
    options: { attempts: 3, backoff: { type: 'exponential', delay: 5000 }, removeOnComplete: true, removeOnFail: 100 },
  } satisfies JobDefinition<typeof GeoScheduledRunPayload>,
  /** Audits one page for POST geo/audits (workers/geo.ts); the audit records its own failures. */
  geoAudit: {
    queue: GEO_QUEUE,
    name: 'geo.audit',
    schema: GeoAuditPayload,
    jobId: (d) => deterministicJobId('geo.audit', [d.audit_id]),
    options: { attempts: 2, removeOnComplete: true, removeOnFail: true },
  } satisfies JobDefinition<typeof GeoAuditPayload>,
  /**
   * Folds a site's changed hours into its analytics rollups (workers/rollup.ts). One id per
   * site and coalescing slot: every batch of a slot shares one job, and a batch arriving
   * while that job runs belongs to a later slot, so it gets a job of its own.
   */
  rollupSite: {
    queue: ROLLUP_QUEUE,
    name: 'rollup.site',
    schema: RollupSitePayload,
    jobId: (d) => `rollup-${d.site_id}-${d.slot}`,
    // The dirty hours stay in PostgreSQL until a rollup commits, and the sweep enqueues
    // any site left with some, so a failed job need not keep its id.
    options: { attempts: 5, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: true },
  } satisfies JobDefinition<typeof RollupSitePayload>,
  /** Enqueues a rollup for every site with changed hours; made by the `rollup-sweep` job scheduler. */
  rollupSweep: {
    queue: ROLLUP_QUEUE,
    name: 'rollup.sweep',
    schema: RollupSweepPayload,
    jobId: () => 'rollup-sweep',
    options: { removeOnComplete: true, removeOnFail: 100 },
  } satisfies JobDefinition<typeof RollupSweepPayload>,
  /**
   * Makes the file of one export (workers/exports.ts). A retry starts the file over; the
   * export row in PostgreSQL says what is left to do, so a worker start enqueues any export
   * still queued or running (a job lost with Redis) under this same id.
   */
  exportRun: {
    queue: EXPORTS_QUEUE,
    name: 'exports.run',
    schema: ExportRunPayload,
    jobId: (d) => deterministicJobId('exports.run', [d.export_id]),
    options: { attempts: 3, backoff: { type: 'exponential', delay: 5000 }, removeOnComplete: true, removeOnFail: true },
  } satisfies JobDefinition<typeof ExportRunPayload>,
  /** Deletes the files of expired exports; made by the `exports-sweep` job scheduler. */
  exportSweep: {
    queue: EXPORTS_QUEUE,
    name: 'exports.sweep',
    schema: ExportSweepPayload,
    jobId: () => 'exports-sweep',
    options: { removeOnComplete: true, removeOnFail: 100 },
  } satisfies JobDefinition<typeof ExportSweepPayload>,
  /**
   * Stores a batch of metered relay calls (workers/usage.ts). Its name predates the catalog's
   * `queue.verb` names; jobs already queued carry it. Each call is in exactly one batch, so the
   * first call's id names the batch.
   */
  usageCalls: {
    queue: USAGE_QUEUE,
    name: 'calls',
    schema: UsageJobSchema,
    jobId: (d) => `usage-${d.rows[0]!.id}`,
    options: { attempts: 8, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: 1000 },
  } satisfies JobDefinition<typeof UsageJobSchema>,
} as const;

export type Jobs = typeof JOBS;
export type JobKey = keyof Jobs;
/** The payload of catalog job `K`, as its processor receives it. */
export type PayloadOf<K extends JobKey> = z.output<Jobs[K]['schema']>;
/** The catalog keys of the jobs that run on queue `Q`. */
export type JobsOn<Q extends QueueName> = { [K in JobKey]: Jobs[K]['queue'] extends Q ? K : never }[JobKey];

export async function enqueue<S extends z.ZodType>(
  queues: QueueRegistry,
  def: JobDefinition<S>,
  data: z.output<S>,
): Promise<void> {
  await queues.get(def.queue).add(def.name, data, { ...def.options, jobId: def.jobId(data) });
}

export async function enqueueMany<S extends z.ZodType>(
  queues: QueueRegistry,
  def: JobDefinition<S>,
  items: ReadonlyArray<z.output<S>>,
): Promise<void> {
  if (!items.length) return;
  await queues
    .get(def.queue)
    .addBulk(items.map((data) => ({ name: def.name, data, opts: { ...def.options, jobId: def.jobId(data) } })));
}

/** The job's payload as its definition says, or an UnrecoverableError: retrying cannot fix it. */
export function jobPayload<S extends z.ZodType>(def: JobDefinition<S>, job: Job): z.output<S> {
  if (job.name !== def.name) throw new UnrecoverableError(`job ${job.id} is a ${job.name}, expected ${def.name}`);
  const r = def.schema.safeParse(job.data);
  if (!r.success)
    throw new UnrecoverableError(`job ${job.id} (${def.name}) has an invalid payload: ${z.prettifyError(r.error)}`);
  return r.data;
}
