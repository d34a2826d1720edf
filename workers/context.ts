import type { Redis } from 'ioredis';
import type { Config } from '../config/env.ts';
import type { Db } from '../src/db/connection.ts';
import type { Logger } from '../src/log.ts';
import type { ModelAsker } from '../src/geo/ask.ts';
import type { QueueRegistry } from '../src/queues/registry.ts';
import type { RollupRequests } from './ingest.ts';

/** What a job processor works with; one per worker process, built and closed by workers/run.ts. */
export interface WorkerContext {
  readonly config: Config;
  readonly db: Db;
  /** For processors that enqueue follow-up jobs (e.g. rollups after an ingest). */
  readonly queues: QueueRegistry;
  /** For counters the front door's /metrics reads (src/metrics/). */
  readonly redis: Redis;
  readonly log: Logger;
  /** Asks GEO prompts; its per-channel limits hold across every run the process executes. */
  readonly asker: ModelAsker;
  readonly rollupRequests: RollupRequests;
}
