import type { Job, WorkerOptions } from 'bullmq';
import type { WorkerContext } from './context.ts';

/** One queue's processor and how it runs; `workers/catalog.ts` lists them all. */
export interface QueueWorker {
  /** The BullMQ queue name, also the `radar work --queues` name. */
  queue: string;
  process: (job: Job, ctx: WorkerContext) => Promise<unknown>;
  /** Overrides WORKER_CONCURRENCY for this queue. */
  concurrency?: (ctx: WorkerContext) => number;
  /**
   * Runs once when a worker process starts serving the queue (e.g. upsertJobScheduler). What
   * it returns (a timer, a sweeper) is closed at shutdown, before the workers.
   */
  onStart?: (ctx: WorkerContext) => Promise<void | { close(): Promise<void> }>;
  options?: Partial<Pick<WorkerOptions, 'lockDuration' | 'stalledInterval' | 'maxStalledCount'>>;
}
