import type { Logger } from '../log.ts';

export interface CloseStep {
  name: string;
  run: () => Promise<unknown>;
}

/**
 * Runs every cleanup step in order, even when one fails or hangs (each gets `timeoutMs`),
 * and returns once all are done. Called once per process; later calls share the promise.
 */
export function makeCloser(steps: () => readonly CloseStep[], log: Logger, timeoutMs: number): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () =>
    (closing ??= (async () => {
      for (const step of steps()) {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            step.run(),
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new Error(`${step.name} did not finish in ${timeoutMs} ms`)), timeoutMs);
            }),
          ]);
        } catch (err) {
          log.warn({ err, step: step.name }, 'shutdown step failed');
        } finally {
          clearTimeout(timer);
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
