import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from '../../src/log.ts';

/** A pino logger whose JSON lines are parsed into `lines`, for tests that assert on what was logged. */
export function capturingLogger(lines: Record<string, unknown>[], level = 'info'): Logger {
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return pino({ level }, sink);
}
