import { Redis } from 'ioredis';

/**
 * A Redis connection. `maxRetriesPerRequest: null` is what BullMQ requires of the
 * connections it blocks on; `enableOfflineQueue: false` on the front door's command
 * connection makes a call fail at once when Redis is down, so requests answer 503
 * instead of hanging.
 */
export function createRedis(url: string, opts: { blocking: boolean; name: string }): Redis {
  return new Redis(url, {
    connectionName: opts.name,
    maxRetriesPerRequest: opts.blocking ? null : 1,
    enableOfflineQueue: opts.blocking,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
  });
}
