import { pino, type Logger } from 'pino';

export type { Logger };

/** The process's root logger; requests and jobs log through children carrying their ids. */
export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { pid: process.pid, ...bindings },
    // Secrets must never reach a log line, even through a logged header object.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.secret'],
      censor: '[redacted]',
    },
  });
}
