import pTimeout from 'p-timeout';
import type { Logger } from '../log.ts';

export interface CloseStep {
  name: string;
  /** `msLeft`: what remains of the shutdown deadline when the step starts. */
  run: (msLeft: number) => Promise<unknown>;
}

/**
 * Runs every cleanup step in order, even when one fails or hangs, all within one deadline
 * `timeoutMs` from the first call, and returns once all are done. A step still running at the
 * deadline is left behind; the steps after it are still started, so connections close, but not
 * waited for. Called once per process; later calls share the promise.
 */
export function makeCloser(steps: () => readonly CloseStep[], log: Logger, timeoutMs: number): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () =>
    (closing ??= (async () => {
      const deadline = Date.now() + timeoutMs;
      for (const step of steps()) {
        const msLeft = Math.max(0, deadline - Date.now());
        try {
          // p-timeout wants a positive time; a step started past the deadline gets only a tick.
          await pTimeout(step.run(msLeft), {
            milliseconds: Math.max(1, msLeft),
            message: `${step.name} did not finish within the ${timeoutMs} ms shutdown deadline`,
          });
        } catch (err) {
          log.warn({ err, step: step.name }, 'shutdown step failed');
        }
      }
    })());
}

/**
 * Graceful on the first SIGTERM/SIGINT, immediate exit on the second: an operator who
 * presses Ctrl-C twice means it.
 */
export function onShutdownSignal(log: Logger, shutdown: (signal: string) => Promise<void>): void {
  let count = 0;
  const handler = (signal: NodeJS.Signals) => {
    count++;
    if (count > 1) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    log.info({ signal }, 'shutting down');
    shutdown(signal).then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  // Children of `radar up` run in their own process group (see supervisor.ts), so nothing
  // stops them when the supervisor is killed outright: notice being orphaned and shut down.
  const supervisor = Number(process.env.RADAR_SUPERVISOR_PID);
  if (supervisor > 0) {
    setInterval(() => {
      if (process.ppid !== supervisor) handler('SIGTERM');
    }, 500).unref();
  }
}
