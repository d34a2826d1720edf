import type { Redis } from 'ioredis';
import type { Config } from '../config/env.ts';
import type { Db } from './db/connection.ts';
import type { RateLimiter } from './limits/rate-limiter.ts';
import type { Logger } from './log.ts';
import type { Metrics } from './metrics/registry.ts';
import type { QueueRegistry } from './queues/registry.ts';

/** The long-lived parts a front-door handler works with; built once per process. */
export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  /** Command connection: fails fast when Redis is down (see createRedis). */
  readonly redis: Redis;
  readonly queues: QueueRegistry;
  /** Token buckets shared by every front door through Redis. */
  readonly limiter: RateLimiter;
  readonly metrics: Metrics;
  readonly log: Logger;
}
