import type { z } from 'zod';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors/usage-error.ts';

/** One `radar …` command. `run` returns the JSON object to print, or nothing for daemons. */
export interface Command {
  usage: string;
  // biome-ignore lint/suspicious/noConfusingVoidType: a command that prints nothing returns nothing
  run(argv: string[]): Promise<Record<string, unknown> | void>;
}

export function parseFlags<O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: O,
  positionals = false,
) {
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

/** Parses flag values with a zod schema; the first violation becomes a usage error naming its flag. */
export function parseFlagValues<S extends z.ZodType>(
  schema: S,
  value: unknown,
  flagOf: (field: string) => string = kebabFlag,
): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  throw new UsageError(`${flagOf(String(i.path[0]))}: ${i.message}`);
}

function kebabFlag(field: string): string {
  return `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
