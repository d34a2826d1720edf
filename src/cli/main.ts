import { ConfigError } from '../errors/config-error.ts';
import { MigrationMismatchError } from '../errors/migration-error.ts';
import type { Command } from './command.ts';
import { UsageError } from '../errors/usage-error.ts';

/** Command names, longest first so `relay key create` wins over a shorter prefix. */
const COMMANDS: Record<string, () => Promise<{ command: Command }>> = {
  up: () => import('./commands/up.ts'),
  serve: () => import('./commands/serve.ts'),
  work: () => import('./commands/work.ts'),
  migrate: () => import('./commands/migrate.ts'),
  'account create': () => import('./commands/account-create.ts'),
  'account group': () => import('./commands/account-group.ts'),
  'session create': () => import('./commands/session-create.ts'),
  'site review': () => import('./commands/site-review.ts'),
  import: () => import('./commands/import.ts'),
  'relay channel add': () => import('./commands/relay-channel-add.ts'),
  'relay model set': () => import('./commands/relay-model-set.ts'),
  'relay group set': () => import('./commands/relay-group-set.ts'),
  'relay price set': () => import('./commands/relay-price-set.ts'),
  'relay key create': () => import('./commands/relay-key-create.ts'),
  'relay key disable': () => import('./commands/relay-key-disable.ts'),
};

function findCommand(argv: string[]): { name: string; rest: string[] } | null {
  for (let words = 3; words >= 1; words--) {
    const name = argv.slice(0, words).join(' ');
    if (name in COMMANDS) return { name, rest: argv.slice(words) };
  }
  return null;
}

function fail(message: string, code: number): never {
  process.stderr.write(`radar: ${message}\n`);
  process.exit(code);
}

const found = findCommand(process.argv.slice(2));
if (!found) {
  fail(`unknown command "${process.argv.slice(2).join(' ')}". Commands:\n  ${Object.keys(COMMANDS).join('\n  ')}`, 2);
}
try {
  const { command } = await COMMANDS[found.name]!();
  const result = await command.run(found.rest);
  if (result) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  }
} catch (err) {
  if (err instanceof UsageError || err instanceof ConfigError) fail(`${err.message}`, 2);
  if (err instanceof MigrationMismatchError) fail(err.message, 1);
  const e = err as { code?: string; message?: string };
  if (e.code === '42P01' || e.code === '3D000')
    fail(`the database is not migrated: run "radar migrate" first (${e.message})`, 1);
  fail((err as Error).stack ?? String(err), 1);
}
