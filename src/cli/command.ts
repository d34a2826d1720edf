import { parseArgs, type ParseArgsConfig } from 'node:util';

/** One `radar …` command. `run` returns the JSON object to print, or nothing for daemons. */
export interface Command {
  usage: string;
  run(argv: string[]): Promise<Record<string, unknown> | void>;
}

/** A failure the user can fix; printed as one line on stderr without a stack. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseFlags<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O, positionals = false) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: positionals });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${flag} is required`);
  return value;
}
