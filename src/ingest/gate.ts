import PQueue from 'p-queue';
import { isConnectivityError } from '../errors/connectivity.ts';
import { unavailable } from '../errors/http-error.ts';

/**
 * Bounds how many ingest requests use PostgreSQL at once. Without it a burst
 * queues on the pool itself, whose wait is capped by the connect timeout meant to detect a
 * PostgreSQL that is down, and requests that only had to wait their turn get 503. Waiting here
 * holds no connection. When PostgreSQL is really unreachable, the waiting requests fail at
 * once instead of each waiting out the connect timeout in turn. One per front door (AppContext).
 */
export class Gate {
  private readonly queue: PQueue;
  private failedUntil = 0;

  constructor(limit: number) {
    this.queue = new PQueue({ concurrency: limit });
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.add(async () => {
      if (Date.now() < this.failedUntil) throw unavailable('PostgreSQL');
      try {
        return await fn();
      } catch (err) {
        if (isConnectivityError(err)) this.failedUntil = Date.now() + 1000;
        throw err;
      }
    });
  }
}
