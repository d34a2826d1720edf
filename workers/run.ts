import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { z } from 'zod';
import type { Config } from '../config/env.ts';
import { createDb } from '../src/db/connection.ts';
import { ModelAsker } from '../src/geo/ask.ts';
import { createLogger, type Logger } from '../src/log.ts';
import { recordJobDuration } from '../src/metrics/job-durations.ts';
import { jobPayload, JOBS, QUEUES, type JobDefinition, type JobKey, type QueueName } from '../src/queues/catalog.ts';
import { QueueRegistry } from '../src/queues/registry.ts';
import { createRedis } from '../src/redis.ts';
import { makeCloser } from '../src/shared/closer.ts';
import { QUEUE_WORKERS } from './catalog.ts';
import type { WorkerContext } from './context.ts';
import { RollupRequests } from './ingest.ts';

type AnyQueueWorker = (typeof QUEUE_WORKERS)[QueueName];

export interface RunningWorkers {
  readonly queues: readonly string[];
  readonly context: WorkerContext;
  /** Stops taking jobs, lets active ones finish (up to the shutdown timeout), closes pools. */
  close(): Promise<void>;
}

/**
 * The processor of one queue: finds the job's handler by its name, checks its payload against
 * the catalog (an invalid one fails for good) and runs it.
 */
function dispatcher(worker: AnyQueueWorker, context: WorkerContext): (job: Job) => Promise<unknown> {
  const byName = new Map<string, (job: Job) => Promise<unknown>>();
  // Each handler is typed for its own job's payload; jobPayload checks it against that job's schema.
  for (const [key, handler] of Object.entries(worker.handlers) as [
    JobKey,
    (data: unknown, job: Job, ctx: WorkerContext) => Promise<unknown>,
  ][]) {
    const def: JobDefinition<z.ZodType> = JOBS[key];
    byName.set(def.name, (job) => handler(jobPayload(def, job), job, context));
  }
  return (job) => {
    const run = byName.get(job.name);
    if (!run) throw new UnrecoverableError(`job ${job.id} has the unknown name ${job.name}`);
    return run(job);
  };
}

function isQueueName(name: string): name is QueueName {
  return (QUEUES as readonly string[]).includes(name);
}

/** Starts BullMQ workers for the named queues (all when `names` is empty) in this process. */
export async function startWorkers(
  config: Config,
  names: readonly string[],
  log: Logger = createLogger(config.LOG_LEVEL, { role: 'worker' }),
): Promise<RunningWorkers> {
  const unknown = names.filter((n) => !isQueueName(n));
  if (unknown.length) throw new Error(`unknown queue ${unknown.join(', ')}; known: ${QUEUES.join(', ')}`);
  const chosen: AnyQueueWorker[] = QUEUES.filter((q) => !names.length || names.includes(q)).map(
    (q) => QUEUE_WORKERS[q],
  );

  const db = createDb({
    url: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: 'radar-worker',
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
  });
  const queueRedis = createRedis(config.REDIS_URL, { blocking: true, name: 'radar-worker-queues' });
  queueRedis.on('error', (err) => log.debug({ err }, 'redis connection error'));
  const queues = new QueueRegistry(queueRedis, config.QUEUE_PREFIX);
  const context: WorkerContext = {
    config,
    db,
    queues,
    redis: queueRedis,
    log,
    asker: new ModelAsker(db, log.child({ component: 'geo' })),
    rollupRequests: new RollupRequests(queues),
  };

  const connections = chosen.map((def) =>
    createRedis(config.REDIS_URL, { blocking: true, name: `radar-worker-${def.queue}` }),
  );
  // Without a listener, ioredis reports every failed reconnect as an unhandled error event.
  for (const c of connections) c.on('error', (err) => log.debug({ err }, 'redis connection error'));
  const workers = chosen.map((def, i) => {
    // BullMQ duplicates this connection for its blocking reads and closes only the duplicate.
    const worker = new Worker(def.queue, dispatcher(def, context), {
      connection: connections[i]!,
      prefix: config.QUEUE_PREFIX,
      concurrency: def.concurrency?.(context) ?? config.WORKER_CONCURRENCY,
      ...def.options,
    });
    const timed = (status: 'completed' | 'failed', job: { processedOn?: number; finishedOn?: number } | undefined) => {
      if (!job?.processedOn || !job.finishedOn) return;
      recordJobDuration(
        queueRedis,
        config.QUEUE_PREFIX,
        def.queue,
        status,
        (job.finishedOn - job.processedOn) / 1000,
      ).catch((err) => log.debug({ err }, 'job metrics not recorded'));
    };
    worker.on('completed', (job) => timed('completed', job));
    worker.on('failed', (job, err) => {
      timed('failed', job);
      log.warn({ queue: def.queue, jobId: job?.id, attempts: job?.attemptsMade, err }, 'job failed');
    });
    worker.on('error', (err) => log.debug({ queue: def.queue, err }, 'worker error'));
    return worker;
  });
  const started: { close(): Promise<void> }[] = [];
  for (const def of chosen) {
    const s = await def.onStart?.(context);
    if (s) started.push(s);
  }
  log.info({ queues: chosen.map((w) => w.queue) }, 'workers started');

  const close = makeCloser(
    () => [
      { name: 'background tasks', run: () => Promise.all(started.map((s) => s.close())) },
      // Ends the model calls of GEO runs at once: a run cut off here is retried from what it stored.
      { name: 'geo asker', run: () => context.asker.close() },
      // close() waits for active jobs; the closer's timeout bounds it, and a job cut off
      // there is handed back to the queue as stalled and retried by another worker.
      { name: 'workers', run: () => Promise.all(workers.map((w) => w.close())) },
      { name: 'worker connections', run: () => Promise.all(connections.map((c) => c.quit().catch(() => undefined))) },
      { name: 'queues', run: () => queues.close() },
      { name: 'redis', run: () => queueRedis.quit() },
      { name: 'postgres', run: () => db.$pool.end() },
    ],
    log,
    config.SHUTDOWN_TIMEOUT_MS,
  );

  return { queues: chosen.map((w) => w.queue), context, close };
}
