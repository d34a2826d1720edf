import type { Redis } from 'ioredis';
import type { Config } from '../config/env.ts';
import type { Db } from '../src/db/connection.ts';
import type { Logger } from '../src/log.ts';
import type { QueueRegistry } from '../src/queues/registry.ts';

/** What a job processor works with; one per worker process. */
export interface WorkerContext {
  readonly config: Config;
  readonly db: Db;
  /** For processors that enqueue follow-up jobs (e.g. rollups after an ingest). */
  readonly queues: QueueRegistry;
  /** For counters the front door's /metrics reads (src/metrics/). */
  readonly redis: Redis;
  readonly log: Logger;
}
