import type { Redis } from 'ioredis';
import type { Config } from '../config/env.ts';
import type { SharedSnapshots } from './analytics/snapshot.ts';
import type { CredentialLookups } from './auth/authenticate.ts';
import type { Db } from './db/connection.ts';
import type { Gate } from './ingest/gate.ts';
import type { RateLimiter } from './limits/rate-limiter.ts';
import type { Logger } from './log.ts';
import type { Metrics } from './metrics/registry.ts';
import type { QueueRegistry } from './queues/registry.ts';
import type { WorkerResults } from './queues/worker-results.ts';
import type { Relay } from './relay/relay.ts';

/**
 * The long-lived parts a front-door handler works with; built once per process, in one place
 * (src/front-door.ts), which also closes them.
 */
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
  readonly credentials: CredentialLookups;
  readonly ingestGate: Gate;
  /** Wakes requests waiting for a worker: ingest batches, GEO audits. */
  readonly workerResults: WorkerResults;
  readonly relay: Relay;
  /** Analytics reads over several connections of `db` in one snapshot. */
  readonly snapshots: SharedSnapshots;
}
