import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { freePort } from '../helpers/ports.ts';


const RADAR = fileURLToPath(new URL('../../src/cli/radar.js', import.meta.url));

function exited(proc: ChildProcess): Promise<void> {
  return proc.exitCode !== null || proc.signalCode !== null ? Promise.resolve() : new Promise((r) => proc.once('exit', () => r()));
}

export interface RadarProcess {
  readonly proc: ChildProcess;
  /** The HTTP port of a `serve` process. */
  readonly port: number | null;
  /** Sends a signal and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Runs `radar serve` or `radar work …` as a child process and resolves once it is ready
 * (its "front door listening" or "workers started" log line), so a test can SIGKILL it.
 */
export function spawnRadar(args: readonly string[], env: Record<string, string>, timeoutMs = 30_000): Promise<RadarProcess> {
  // RADAR_CHILD_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the children.
  const nodeArgs = (process.env.RADAR_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...nodeArgs, RADAR, ...args], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`radar ${args.join(' ')} not ready in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`radar ${args.join(' ')} exited (${code ?? signal}) before it was ready: ${stderr}`));
    });
    let buffered = '';
    proc.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let entry: { msg?: string; port?: number };
        try {
          entry = JSON.parse(line);
        } catch {
          continue;
        }
        if (entry.msg === 'front door listening' || entry.msg === 'workers started') {
          clearTimeout(timer);
          proc.removeAllListeners('exit');
          resolve({
            proc,
            port: entry.port ?? null,
            async kill(sig) {
              proc.kill(sig);
              await exited(proc);
            },
          });
        }
      }
    });
  });
}

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
      proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir], { stdio: 'ignore' });
      const deadline = Date.now() + 10_000;
      for (;;) {
        const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        probe.on('error', () => undefined); // connect() rejects with the same error
        try {
          await probe.connect();
          if ((await probe.ping()) === 'PONG') return;
        } catch {
          if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not start`);
          await new Promise((r) => setTimeout(r, 50));
        } finally {
          probe.disconnect();
        }
      }
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
