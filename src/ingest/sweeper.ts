import type { Db } from '../db/connection.ts';
import type { Logger } from '../log.ts';
import { enqueueMany, JOBS } from '../queues/catalog.ts';
import type { QueueRegistry } from '../queues/registry.ts';
import { stalledBatches } from './repo.ts';

export interface SweeperOptions {
  /** Time between sweeps. @defaultValue 5000 */
  intervalMs?: number;
  /** A batch queued longer than this is enqueued again. @defaultValue 5 */
  olderThanSeconds?: number;
  /** Batches per sweep. @defaultValue 1000 */
  limit?: number;
}

/**
 * Re-enqueues batches that are stored as queued but whose job may be gone: Redis lost its
 * data, or a front door died between storing a batch and enqueueing it. PostgreSQL is the
 * record of what was accepted; Redis only schedules. Enqueueing a batch whose job still
 * exists is a no-op (deterministic jobId), and applying one twice changes nothing, so every
 * worker process may sweep, and it may sweep often. It runs in the worker process, not as a
 * BullMQ job scheduler, because the scheduler would be lost with the very Redis data it has
 * to make up for.
 */
export function startSweeper(
  ctx: { db: Db; queues: QueueRegistry; log: Logger },
  opts: SweeperOptions = {},
): { close(): Promise<void> } {
  const intervalMs = opts.intervalMs ?? 5000;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;

  const sweep = async () => {
    try {
      const batches = await stalledBatches(ctx.db, opts.olderThanSeconds ?? 5, opts.limit ?? 1000);
      await enqueueMany(ctx.queues, JOBS.ingestApply, batches);
      if (batches.length) ctx.log.info({ batches: batches.length }, 're-enqueued queued ingest batches');
    } catch (err) {
      ctx.log.warn({ err }, 'ingest sweep failed; will retry');
    }
  };
  const loop = () => {
    running = sweep().finally(() => {
      running = null;
      if (!stopped) timer = setTimeout(loop, intervalMs);
    });
  };
  loop();

  return {
    async close() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
