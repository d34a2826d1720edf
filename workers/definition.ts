import type { Job, WorkerOptions } from 'bullmq';
import type { JobKey, JobsOn, PayloadOf, QueueName } from '../src/queues/catalog.ts';
import type { WorkerContext } from './context.ts';

/** Applies one job of catalog entry `K`; its payload is already checked against the catalog's schema. */
export type JobHandler<K extends JobKey> = (data: PayloadOf<K>, job: Job, ctx: WorkerContext) => Promise<unknown>;

/** One queue's processors, one for each job the catalog puts on it, and how they run; `workers/catalog.ts` lists them all. */
export interface QueueWorker<Q extends QueueName = QueueName> {
  queue: Q;
  handlers: { [K in JobsOn<Q>]: JobHandler<K> };
  /** Overrides WORKER_CONCURRENCY for this queue. */
  concurrency?: (ctx: WorkerContext) => number;
  /**
   * Runs once when a worker process starts serving the queue (e.g. upsertJobScheduler). What
   * it returns (a timer, a sweeper) is closed at shutdown, before the workers.
   */
  onStart?: (ctx: WorkerContext) => Promise<void | { close(): Promise<void> }>;
  options?: Partial<Pick<WorkerOptions, 'lockDuration' | 'stalledInterval' | 'maxStalledCount'>>;
}
