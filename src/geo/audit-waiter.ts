import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../../config/env.ts';
import type { Db } from '../db/connection.ts';
import type { Logger } from '../log.ts';
import { JOBS } from '../queues/catalog.ts';
import { createRedis } from '../redis.ts';
import type { AbortWatch } from '../shared/abort.ts';
import { findAudit, type AuditRow } from './repo.ts';

/**
 * Lets a POST geo/audits request wait for the worker that runs its audit: BullMQ's queue events
 * say when the job finished, the audit row says how. One per front door (AppContext), whose
 * QueueEvents starts on the first audit; the row is read after listening starts, so a job that
 * finished before is not waited for.
 */
export class AuditWaiter {
  private listening: { events: QueueEvents; connection: Redis } | null = null;

  constructor(private readonly deps: { config: Config; db: Db; log: Logger }) {}

  private get events(): QueueEvents {
    if (!this.listening) {
      const { config, log } = this.deps;
      const connection = createRedis(config.REDIS_URL, { blocking: true, name: 'radar-front-door-geo-events' });
      connection.on('error', (err) => log.debug({ err }, 'redis connection error'));
      const events = new QueueEvents(JOBS.geoAudit.queue, { connection, prefix: config.QUEUE_PREFIX });
      events.on('error', (err) => log.debug({ err }, 'geo queue events error'));
      this.listening = { events, connection };
    }
    return this.listening.events;
  }

  /** The audit once it is no longer running, or as it is after `ms` (or when `signal` aborts). */
  async wait(auditId: string, ms: number, signal: AbortWatch): Promise<AuditRow> {
    const { db } = this.deps;
    const events = this.events;
    const jobId = JOBS.geoAudit.jobId({ audit_id: auditId });
    let wake = () => {};
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const timer = setTimeout(wake, ms);
    const onFinished = (e: { jobId: string }) => {
      if (e.jobId === jobId) wake();
    };
    events.on('completed', onFinished);
    events.on('failed', onFinished);
    signal.addEventListener('abort', wake);
    try {
      await Promise.race([events.waitUntilReady(), woken]);
      const now = await findAudit(db, auditId);
      if (now && now.status !== 'running') return now;
      await woken;
      return (await findAudit(db, auditId))!;
    } finally {
      clearTimeout(timer);
      events.off('completed', onFinished);
      events.off('failed', onFinished);
      signal.removeEventListener('abort', wake);
    }
  }

  /** BullMQ leaves a connection it was handed open; its blocking read ends with the quit. */
  async close(): Promise<void> {
    const l = this.listening;
    this.listening = null;
    if (!l) return;
    await l.events.close();
    await l.connection.quit().catch(() => l.connection.disconnect());
  }
}
