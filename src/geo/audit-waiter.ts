import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AppContext } from '../app-context.ts';
import { JOBS } from '../queues/catalog.ts';
import { createRedis } from '../redis.ts';
import type { AbortWatch } from '../shared/abort.ts';
import { findAudit, type AuditRow } from './repo.ts';

/**
 * Lets a POST geo/audits request wait for the worker that runs its audit: BullMQ's queue events
 * say when the job finished, the audit row says how. One QueueEvents per front door, started
 * on the first audit; the row is read after listening starts, so a job that finished before
 * is not waited for.
 */
export class AuditWaiter {
  private readonly events: QueueEvents;
  private readonly connection: Redis;

  constructor(app: AppContext) {
    const def = JOBS.geoAudit;
    this.connection = createRedis(app.config.REDIS_URL, { blocking: true, name: 'radar-front-door-geo-events' });
    this.connection.on('error', (err) => app.log.debug({ err }, 'redis connection error'));
    this.events = new QueueEvents(def.queue, { connection: this.connection, prefix: app.config.QUEUE_PREFIX });
    this.events.on('error', (err) => app.log.debug({ err }, 'geo queue events error'));
  }

  /** The audit once it is no longer running, or as it is after `ms` (or when `signal` aborts). */
  async wait(app: AppContext, auditId: string, ms: number, signal: AbortWatch): Promise<AuditRow> {
    const jobId = JOBS.geoAudit.jobId({ audit_id: auditId });
    let wake = () => {};
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const timer = setTimeout(wake, ms);
    const onFinished = (e: { jobId: string }) => {
      if (e.jobId === jobId) wake();
    };
    this.events.on('completed', onFinished);
    this.events.on('failed', onFinished);
    signal.addEventListener('abort', wake);
    try {
      await Promise.race([this.events.waitUntilReady(), woken]);
      const now = await findAudit(app.db, auditId);
      if (now && now.status !== 'running') return now;
      await woken;
      return (await findAudit(app.db, auditId))!;
    } finally {
      clearTimeout(timer);
      this.events.off('completed', onFinished);
      this.events.off('failed', onFinished);
      signal.removeEventListener('abort', wake);
    }
  }

  /** BullMQ leaves a connection it was handed open; its blocking read ends with the quit. */
  async close(): Promise<void> {
    await this.events.close();
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}

const waiters = new WeakMap<AppContext, AuditWaiter>();

export function auditWaiter(app: AppContext): AuditWaiter {
  let w = waiters.get(app);
  if (!w) waiters.set(app, (w = new AuditWaiter(app)));
  return w;
}

/** Shutdown step of the front door; a no-op when no audit was requested. */
export async function closeAuditWaiter(app: AppContext): Promise<void> {
  await waiters.get(app)?.close();
  waiters.delete(app);
}
