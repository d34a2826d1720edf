import type { Db } from '../db/connection.ts';
import type { Logger } from '../log.ts';
import type { AbortWatch } from '../shared/abort.ts';

const RECONNECT_MS = 1000;

/** One request's interest in one piece of work: resolves `next()` when it may have finished. */
export interface ResultWatch {
  /**
   * Resolves on a notification for the work, after `ms`, or when `signal` aborts; with what the
   * notification said after the key ('' when nothing), or null when there was none (time out,
   * reconnect): then the caller reads the work's row to know.
   */
  next(ms: number, signal?: AbortWatch): Promise<string | null>;
  close(): void;
}

interface Waiter {
  notified: boolean;
  detail: string | null;
  wake: (() => void) | null;
}

/**
 * The one way a front-door request waits for a worker's result (an ingest batch for the
 * synchronous answer of CONTRACT §3, a GEO audit): the worker's transaction sends
 * `NOTIFY <channel>, '<key>[ <detail>]'`, received through PostgreSQL LISTEN on one connection
 * per process. NOTIFY is delivered at commit, so it can neither come before the result is
 * readable nor be sent for work that rolled back. A notification lost while the connection is
 * down costs only latency: on reconnect every waiter is woken to re-read its row, and each
 * re-reads it at its deadline anyway. One per front door (AppContext), listening from the
 * first watch on.
 */
export class WorkerResults {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private connection: Awaited<ReturnType<Db['connect']>> | null = null;
  private starting: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly channels: readonly string[],
  ) {}

  /** Registers interest in work `key` of `channel`; call before enqueueing it so no result is missed. */
  watch(channel: string, key: string): ResultWatch {
    this.ensureListening();
    const waiter: Waiter = { notified: false, detail: null, wake: null };
    const id = waiterId(channel, key);
    let set = this.waiters.get(id);
    if (!set) this.waiters.set(id, (set = new Set()));
    set.add(waiter);
    return {
      next: (ms, signal) => {
        const take = () => {
          const detail = waiter.detail;
          waiter.notified = false;
          waiter.detail = null;
          return detail;
        };
        if (waiter.notified || ms <= 0 || signal?.aborted) return Promise.resolve(take());
        return new Promise<string | null>((resolve) => {
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
        if (set.size === 0 && this.waiters.get(id) === set) this.waiters.delete(id);
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
        this.log.warn({ err }, 'cannot LISTEN for worker results; retrying');
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
        this.log.warn({ err }, 'lost the LISTEN connection for worker results');
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
      if (!this.channels.includes(msg.channel) || !msg.payload) return;
      const space = msg.payload.indexOf(' ');
      const key = space < 0 ? msg.payload : msg.payload.slice(0, space);
      this.wake(waiterId(msg.channel, key), space < 0 ? '' : msg.payload.slice(space + 1));
    });
    for (const channel of this.channels) await connection.none('LISTEN $1:name', [channel]);
    this.connection = connection;
    // Work that finished while nobody listened announced it to no one: look again.
    this.wakeAll();
  }

  private wake(id: string, detail: string | null): void {
    for (const w of this.waiters.get(id) ?? []) {
      w.notified = true;
      w.detail = detail;
      w.wake?.();
    }
  }

  private wakeAll(): void {
    for (const id of this.waiters.keys()) this.wake(id, null);
  }
}

function waiterId(channel: string, key: string): string {
  return `${channel} ${key}`;
}
