import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { postgresServer } from '../../src/cli/local-services.ts';
import { createDb } from '../../src/db/connection.ts';
import { exited } from './cli.ts';
import { eventually } from './eventually.ts';
import { freePort } from './ports.ts';

/**
 * Private PostgreSQL and Redis servers on their own ports, for tests that stop or kill them:
 * the shared services at the default ports are never touched.
 */

/** A private redis-server with an append-only file, on its own port: ours to kill. */
export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  /** Starts it (again), optionally on an emptied data directory: a Redis that lost everything. */
  start(opts?: { wipe?: boolean }): Promise<void>;
  kill(): Promise<void>;
  /** Kills it and removes its data directory. */
  destroy(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let dir = mkdtempSync(path.join(os.tmpdir(), 'radar-redis-'));
  let proc: ChildProcess | null = null;
  const url = `redis://127.0.0.1:${port}`;
  const api: PrivateRedis = {
    url,
    port,
    async start(opts = {}) {
      if (opts.wipe) {
        rmSync(dir, { recursive: true, force: true });
        dir = mkdtempSync(path.join(os.tmpdir(), 'radar-redis-'));
      }
      proc = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir],
        { stdio: 'ignore' },
      );
      await eventually(
        async () => {
          const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
          probe.on('error', () => undefined); // connect() rejects with the same error
          try {
            await probe.connect();
            return (await probe.ping()) === 'PONG' ? true : undefined;
          } catch {
            return undefined;
          } finally {
            probe.disconnect();
          }
        },
        10_000,
        `redis-server on ${port} to answer PING`,
      );
    },
    async kill() {
      if (!proc) return;
      const p = proc;
      proc = null;
      p.kill('SIGKILL');
      await exited(p);
    },
    async destroy() {
      await api.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await api.start();
  return api;
}

/** A private PostgreSQL cluster in a temporary directory: ours to stop. */
export interface PrivatePostgres {
  /** The URL of its `postgres` database, as a base for test databases. */
  readonly url: string;
  start(): Promise<void>;
  /** Stops it the way a crash would (`immediate`) or cleanly (`fast`). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

export async function privatePostgres(): Promise<PrivatePostgres> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'radar-pg-'));
  const server = postgresServer({ data: path.join(dir, 'data'), socketDir: path.join(dir, 'socket'), port });
  let running = false;
  const api: PrivatePostgres = {
    url: server.url('postgres'),
    async start() {
      await server.start();
      running = true;
      // pg_ctl -w returns once the server accepts connections; make sure a query runs too.
      const probe = createDb({ url: api.url, poolSize: 1, applicationName: 'radar-test-probe' });
      try {
        await probe.one('SELECT 1 AS ok');
      } finally {
        await probe.$pool.end();
      }
    },
    async stop(mode = 'immediate') {
      if (!running) return;
      running = false;
      await server.stop(mode);
    },
    async destroy() {
      await api.stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await api.start();
  return api;
}
