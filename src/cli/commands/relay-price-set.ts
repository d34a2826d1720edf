import { newPrice, presentPrice } from '../../relay/admin-routes.ts';
import { insertPrice } from '../../relay/repo.ts';
import { PriceCreateSchema } from '../../relay/schemas.ts';
import { parseFlags, parseFlagValues, required, type Command } from '../command.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { withDb } from '../with-db.ts';

export const command: Command = {
  usage:
    'radar relay price set MODEL --currency USD --input 1.25 [--cached-input 0.125] --output 10 [--effective-at 2026-12-01T00:00:00Z]',
  async run(argv) {
    const { values, positionals } = parseFlags(
      argv,
      {
        currency: { type: 'string' },
        input: { type: 'string' },
        'cached-input': { type: 'string' },
        output: { type: 'string' },
        'effective-at': { type: 'string' },
      },
      true,
    );
    if (positionals.length !== 1) throw new UsageError(`give exactly one model id: ${this.usage}`);
    const p = parseFlagValues(
      PriceCreateSchema,
      {
        model: positionals[0],
        currency: required(values.currency, 'currency'),
        input: required(values.input, 'input'),
        cachedInput: values['cached-input'],
        output: required(values.output, 'output'),
        effectiveAt: values['effective-at'] ?? null,
      },
      (f) => (f === 'model' ? 'MODEL' : `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`),
    );
    return withDb(async (db) => presentPrice(await insertPrice(db, newPrice(p))));
  },
};
