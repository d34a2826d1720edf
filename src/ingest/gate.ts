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
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private failedUntil = 0;

  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      if (Date.now() < this.failedUntil) throw unavailable('PostgreSQL');
      return await fn();
    } catch (err) {
      if (isConnectivityError(err)) this.failedUntil = Date.now() + 1000;
      throw err;
    } finally {
      // Hand the slot straight to the next waiter, so `active` never drops and rises again.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
