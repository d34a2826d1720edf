import type { Redis } from 'ioredis';
import type { Db } from '../db/connection.ts';
import type { Logger } from '../log.ts';
import type { QueueRegistry } from '../queues/registry.ts';
import type { AbortWatch } from '../shared/abort.ts';
import { callModel, type ModelCall, type ModelRequest } from './call.ts';
import { Directory } from './directory.ts';
import { ResponseHomes } from './followups.ts';
import { RelayKeys } from './keys.ts';
import { Meter } from './meter.ts';
import { Spending } from './spend.ts';
import { UpstreamPools } from './upstream.ts';

/**
 * The relay's long-lived parts: key and directory caches, upstream pools and the meter.
 * The HTTP routes use the front door's instance (AppContext); other features (GEO) may
 * build their own and ask models through `callModel` without going through HTTP.
 */
export class Relay {
  readonly keys: RelayKeys;
  readonly directory: Directory;
  readonly meter: Meter;
  /** Per-key limits and budgets, held in Redis. */
  readonly spending: Spending;
  private readonly pools = new UpstreamPools();
  private readonly homes: ResponseHomes;
  private readonly log: Logger;

  constructor(deps: { db: Db; queues: QueueRegistry; redis: Redis; redisPrefix: string; log: Logger }) {
    this.keys = new RelayKeys(deps.db);
    this.directory = new Directory(deps.db);
    this.meter = new Meter(deps.queues, deps.log);
    this.spending = new Spending(deps.redis, deps.redisPrefix, deps.db, deps.log);
    this.homes = new ResponseHomes(deps.redis, deps.redisPrefix, deps.log);
    this.log = deps.log;
  }

  /** See `callModel` in call.ts; `signal` aborts the upstream request at once. */
  callModel(input: ModelRequest, signal: AbortWatch): Promise<ModelCall> {
    return callModel({ directory: this.directory, pools: this.pools, homes: this.homes, log: this.log }, input, signal);
  }

  /** Flushes the meter and closes upstream connections. */
  async close(): Promise<void> {
    await Promise.allSettled([this.meter.flush(), this.pools.close(), this.spending.close()]);
  }
}
