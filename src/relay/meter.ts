import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.ts';
import { enqueue, JOBS } from '../queues/catalog.ts';
import type { QueueRegistry } from '../queues/registry.ts';
import type { UsageRow } from './repo.ts';

export interface MeterOptions {
  /** Longest a metered call waits in memory before it is enqueued. @defaultValue 250 */
  flushMs?: number;
  /** Calls per job. @defaultValue 500 */
  maxBatch?: number;
}

/**
 * Collects usage rows off the response path and enqueues them in batches on the `usage`
 * queue, where the usage worker stores them. A request never waits for Redis or
 * PostgreSQL; what a crash can lose is at most `flushMs` of metering, never a response.
 */
export class Meter {
  private rows: UsageRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly flushMs: number;
  private readonly maxBatch: number;

  constructor(
    private readonly queues: QueueRegistry,
    private readonly log: Logger,
    opts: MeterOptions = {},
  ) {
    this.flushMs = opts.flushMs ?? 250;
    this.maxBatch = opts.maxBatch ?? 500;
  }

  /** Takes `row` over: it is completed in place, not copied (see mergeHeaders in http/headers.ts for why). */
  record(row: Omit<UsageRow, 'id' | 'at'>): void {
    const full = row as UsageRow;
    // The id is fixed here so a job retried after a partial failure inserts nothing twice.
    full.id = randomUUID();
    full.at = new Date().toISOString();
    this.rows.push(full);
    if (this.rows.length >= this.maxBatch) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.flushMs).unref();
  }

  /** Enqueues what is collected; resolves when every enqueue so far has settled. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.rows.length > 0) {
      const rows = this.rows;
      this.rows = [];
      const added = enqueue(this.queues, JOBS.usageCalls, { rows })
        .catch((err: unknown) =>
          this.log.warn({ err, calls: rows.length }, 'usage rows could not be enqueued; they are lost'),
        )
        .finally(() => this.pending.delete(added));
      this.pending.add(added);
    }
    return Promise.all(this.pending).then(() => undefined);
  }
}
