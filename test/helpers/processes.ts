import { spawn, type ChildProcess } from 'node:child_process';
import { exited, RADAR } from './cli.ts';

export interface RadarProcess {
  readonly proc: ChildProcess;
  /** The HTTP port of a `serve` process. */
  readonly port: number | null;
  /** Every JSON log line it has written so far. */
  readonly logs: ReadonlyArray<Record<string, unknown>>;
  /** Sends a signal and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Runs `radar serve` or `radar work …` as a child process and resolves once it is ready
 * (its "front door listening" or "workers started" log line), so a test can SIGKILL it. The
 * wait is long because a child loads every module through tsx: on a loaded CI machine that
 * alone has taken over 30 s.
 */
export function spawnRadar(
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<RadarProcess> {
  // RADAR_CHILD_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the children.
  const nodeArgs = (process.env.RADAR_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...nodeArgs, RADAR, ...args], {
    env: { ...process.env, LOG_LEVEL: 'info', RESPONSE_CONTRACT_CHECK: '1', ...env },
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
    const logs: Record<string, unknown>[] = [];
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
        logs.push(entry);
        if (entry.msg === 'front door listening' || entry.msg === 'workers started') {
          clearTimeout(timer);
          proc.removeAllListeners('exit');
          resolve({
            proc,
            port: entry.port ?? null,
            logs,
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
