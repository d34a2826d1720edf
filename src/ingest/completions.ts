import type { Db } from '../db/connection.ts';
import type { Logger } from '../log.ts';
import type { AbortWatch } from '../shared/abort.ts';
import { BATCH_FINISHED_CHANNEL } from './repo.ts';

const RECONNECT_MS = 1000;

/**
 * What the notification of a finished batch says besides its key (batch-finish.sql,
 * apply-fresh.sql): with the row the front door stored, the whole receipt of a completed batch.
 */
export interface BatchOutcome {
  status: 'completed' | 'rejected';
  applied: number;
  unchanged: number;
  completedAt: Date;
}

/** One request's interest in one batch: resolves `next()` when the batch may have finished. */
export interface BatchWatch {
  /**
   * Resolves on a notification for the batch, after `ms`, or when `signal` aborts; with the
   * outcome the notification carried, or null when there was none (time out, reconnect).
   */
  next(ms: number, signal?: AbortWatch): Promise<BatchOutcome | null>;
  close(): void;
}

interface Waiter {
  notified: boolean;
  outcome: BatchOutcome | null;
  wake: (() => void) | null;
}

/** `<key> <status> <applied> <unchanged> <completed_at in epoch ms>`, or the key alone. */
function parseNotification(payload: string): { key: string; outcome: BatchOutcome | null } {
  const [key, status, applied, unchanged, completedMs] = payload.split(' ');
  if ((status !== 'completed' && status !== 'rejected') || completedMs === undefined) return { key: key!, outcome: null };
  return { key: key!, outcome: { status, applied: Number(applied), unchanged: Number(unchanged), completedAt: new Date(Number(completedMs)) } };
}

/**
 * Tells front-door requests waiting for a batch (the synchronous answer of CONTRACT §3) that
 * a worker finished it, through PostgreSQL LISTEN on one connection per process. The worker's
 * NOTIFY is sent at commit, in the transaction that applied the batch, so it can neither come
 * before the receipt is readable nor be sent for a batch that rolled back. A notification
 * lost while the connection is down costs only latency: on reconnect every waiter re-reads its
 * batch, and each waiter re-reads it at its deadline anyway. One per front door (AppContext),
 * listening from the first ingest request on.
 */
export class BatchCompletions {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private connection: Awaited<ReturnType<Db['connect']>> | null = null;
  private starting: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly db: Db, private readonly log: Logger) {}

  /** Registers interest in a batch; call before enqueueing it so no completion is missed. */
  watch(key: string): BatchWatch {
    this.ensureListening();
    const waiter: Waiter = { notified: false, outcome: null, wake: null };
    let set = this.waiters.get(key);
    if (!set) this.waiters.set(key, (set = new Set()));
    set.add(waiter);
    return {
      next: (ms, signal) => {
        const take = () => {
          const outcome = waiter.outcome;
          waiter.notified = false;
          waiter.outcome = null;
          return outcome;
        };
        if (waiter.notified || ms <= 0 || signal?.aborted) return Promise.resolve(take());
        return new Promise<BatchOutcome | null>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            waiter.wake = null;
            resolve(take());
          };
          const timer = setTimeout(done, ms);
          signal?.addEventListener('abort', done);
          waiter.wake = done;
        });
      },
      close: () => {
        set.delete(waiter);
        if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.starting?.catch(() => undefined);
    const c = this.connection;
    this.connection = null;
    await c?.done();
    this.wakeAll();
  }

  private ensureListening(): void {
    if (this.connection || this.starting || this.retry || this.closed) return;
    this.starting = this.listen()
      .catch((err) => {
        this.log.warn({ err }, 'cannot LISTEN for finished ingest batches; retrying');
        this.scheduleRetry();
      })
      .finally(() => {
        this.starting = null;
      });
  }

  private scheduleRetry(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (this.waiters.size) this.ensureListening();
    }, RECONNECT_MS);
    this.retry.unref();
  }

  private async listen(): Promise<void> {
    const connection = await this.db.connect({
      direct: true,
      onLost: (err) => {
        this.log.warn({ err }, 'lost the LISTEN connection for ingest batches');
        this.connection = null;
        this.wakeAll();
        this.scheduleRetry();
      },
    });
    if (this.closed) {
      await connection.done();
      return;
    }
    connection.client.on('notification', (msg) => {
      if (msg.channel !== BATCH_FINISHED_CHANNEL || !msg.payload) return;
      const { key, outcome } = parseNotification(msg.payload);
      this.wake(key, outcome);
    });
    await connection.none('LISTEN $1:name', [BATCH_FINISHED_CHANNEL]);
    this.connection = connection;
    // Batches that finished while nobody listened announced it to no one: look again.
    this.wakeAll();
  }

  private wake(key: string, outcome: BatchOutcome | null): void {
    for (const w of this.waiters.get(key) ?? []) {
      w.notified = true;
      w.outcome = outcome;
      w.wake?.();
    }
  }

  private wakeAll(): void {
    for (const key of this.waiters.keys()) this.wake(key, null);
  }
}
