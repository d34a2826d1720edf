import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from './eventually.ts';

export const RADAR = fileURLToPath(new URL('../../src/cli/radar.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

/** Runs `radar …` to completion as a user would, with `env` over a clean environment. */
export function radar(args: readonly string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RADAR, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown = null;
      try {
        json = JSON.parse(stdout);
      } catch {
        // not JSON: the caller asserts on stdout
      }
      resolve({ code, stdout, stderr, json });
    });
    child.stdin.end(stdin ?? '');
  });
}

/** Starts a long-running `radar …` (serve, work, up) in the background. */
export function radarDaemon(args: readonly string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [RADAR, ...args], {
    env: { PATH: process.env.PATH ?? '', RESPONSE_CONTRACT_CHECK: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Grandchildren share these pipes; once the daemon is gone, stop reading so a straggler
  // cannot keep the test process alive.
  child.once('exit', () => {
    child.stdout?.destroy();
    child.stderr?.destroy();
  });
  return child;
}

/**
 * Resolves with the first JSON log line of `child` (from its stdout, from now on) that `match`
 * accepts; fails when the child exits first or after `timeoutMs`.
 */
export function logLine(
  child: ChildProcess,
  match: (line: Record<string, unknown>) => boolean,
  timeoutMs = 20_000,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const done = (err: Error | null, line?: Record<string, unknown>) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(line!);
    };
    const onData = (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const text of lines) {
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(text);
        } catch {
          continue;
        }
        if (match(line)) return done(null, line);
      }
    };
    const onExit = () => done(new Error('the process exited before the log line'));
    const timer = setTimeout(() => done(new Error(`no matching log line in ${timeoutMs} ms`)), timeoutMs);
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Waits until `url` answers 200 (a refused connection: not listening yet). */
export async function waitForHttp(url: string, timeoutMs = 20_000): Promise<void> {
  await eventually(
    async () => ((await fetch(url).catch(() => null))?.status === 200 ? true : undefined),
    timeoutMs,
    `${url} to answer 200`,
  );
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}
