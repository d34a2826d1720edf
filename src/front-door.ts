import type { Config } from '../config/env.ts';
import type { AppContext } from './app-context.ts';
import { createDb } from './db/connection.ts';
import { SharedSnapshots } from './analytics/snapshot.ts';
import { CredentialLookups } from './auth/authenticate.ts';
import { AUDIT_FINISHED_CHANNEL } from './geo/audit-waiter.ts';
import { CONSOLE_DIR, ConsoleFiles } from './http/console-files.ts';
import { allRoutes } from './http/routes.ts';
import { startServer, type RunningServer } from './http/server.ts';
import { Gate } from './ingest/gate.ts';
import { BATCH_FINISHED_CHANNEL } from './ingest/repo.ts';
import { RateLimiter } from './limits/rate-limiter.ts';
import { createLogger, type Logger } from './log.ts';
import { Metrics } from './metrics/registry.ts';
import { QUEUES } from './queues/catalog.ts';
import { QueueRegistry } from './queues/registry.ts';
import { WorkerResults } from './queues/worker-results.ts';
import { createRedis } from './redis.ts';
import { Relay } from './relay/relay.ts';
import { makeCloser } from './shared/closer.ts';

export interface FrontDoor {
  readonly port: number;
  readonly app: AppContext;
  readonly server: RunningServer;
  /** Stops accepting, finishes in-flight requests, closes queues and pools, all within SHUTDOWN_TIMEOUT_MS. */
  close(): Promise<void>;
}

/** Builds the front door's parts and starts listening. Used by `radar serve` and by tests. */
export async function startFrontDoor(
  config: Config,
  log: Logger = createLogger(config.LOG_LEVEL, { role: 'front-door' }),
): Promise<FrontDoor> {
  const db = createDb({
    url: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: 'radar-front-door',
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
  });
  const redis = createRedis(config.REDIS_URL, { blocking: false, name: 'radar-front-door' });
  // Queue connections may wait for Redis to come back: a job add must not be dropped on a blip.
  const queueRedis = createRedis(config.REDIS_URL, { blocking: true, name: 'radar-front-door-queues' });
  for (const c of [redis, queueRedis]) c.on('error', (err) => log.debug({ err }, 'redis connection error'));
  const queues = new QueueRegistry(queueRedis, config.QUEUE_PREFIX);
  const limiter = new RateLimiter(redis, config.QUEUE_PREFIX, log);
  const metrics = new Metrics();
  const app: AppContext = {
    config,
    db,
    redis,
    queues,
    limiter,
    metrics,
    log,
    credentials: new CredentialLookups(db),
    // Half the pool, so ingest leaves connections for every other route.
    ingestGate: new Gate(Math.max(1, Math.floor(config.DATABASE_POOL_SIZE / 2))),
    workerResults: new WorkerResults(db, log, [BATCH_FINISHED_CHANNEL, AUDIT_FINISHED_CHANNEL]),
    relay: new Relay({ db, queues, redis, redisPrefix: config.QUEUE_PREFIX, log: log.child({ component: 'relay' }) }),
    snapshots: new SharedSnapshots(db),
  };
  metrics.collectFrom(app, QUEUES);

  const consoleFiles = new ConsoleFiles();
  if (!consoleFiles.built)
    log.warn({ dir: CONSOLE_DIR }, 'the web console is not built (npm install builds it); only the APIs are served');
  let draining = false;
  const server = await startServer(
    app,
    allRoutes(() => draining),
    { host: config.HOST, port: config.PORT, bodyTimeoutMs: config.BODY_TIMEOUT_MS, console: consoleFiles },
  );
  log.info({ host: config.HOST, port: server.port }, 'front door listening');

  const close = makeCloser(
    () => [
      {
        name: 'http',
        run: async (msLeft) => {
          draining = true;
          const { unfinished } = await server.close(msLeft);
          if (unfinished) log.warn({ unfinished }, 'requests still running at shutdown');
        },
      },
      { name: 'worker results', run: () => app.workerResults.close() },
      // After http (no request uses the relay any more), before queues (the meter flushes into them).
      { name: 'relay', run: () => app.relay.close() },
      { name: 'queues', run: () => queues.close() },
      // quit() on a connection that is not up never settles (or rejects at once) and leaves
      // its reconnect timer running, which keeps the process alive: only quit what is ready.
      {
        name: 'redis',
        run: () => Promise.all([redis, queueRedis].map((c) => (c.status === 'ready' ? c.quit() : c.disconnect()))),
      },
      { name: 'postgres', run: () => db.$pool.end() },
    ],
    log,
    config.SHUTDOWN_TIMEOUT_MS,
  );

  return { port: server.port, app, server, close };
}
