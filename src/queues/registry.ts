import type { QueueOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { Queue } from './bullmq.ts';

/**
 * The BullMQ queues one process writes to, created on first use and sharing one
 * connection. Workers own their own connections (see workers/).
 */
export class QueueRegistry {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
  ) {}

  get(name: string, defaults?: QueueOptions['defaultJobOptions']): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix: this.prefix, defaultJobOptions: defaults });
      // Errors surface on the calls that failed; an unhandled 'error' event would crash.
      q.on('error', () => undefined);
      this.queues.set(name, q);
    }
    return q;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
