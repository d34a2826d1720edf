import { presentModel } from '../../relay/admin-routes.ts';
import { DEFAULT_EFFORTS } from '../../relay/protocol.ts';
import { splitList } from '../../relay/names.ts';
import { upsertModel } from '../../relay/repo.ts';
import { ModelPutSchema } from '../../relay/schemas.ts';
import { parseFlags, parseFlagValues, type Command } from '../command.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { withDb } from '../with-db.ts';

export const command: Command = {
  usage: 'radar relay model set MODEL [--efforts low,medium,high,xhigh,…] [--kind chat|embedding] [--allow-unpriced]',
  async run(argv) {
    const { values, positionals } = parseFlags(
      argv,
      {
        efforts: { type: 'string', default: DEFAULT_EFFORTS.join(',') },
        kind: { type: 'string', default: 'chat' },
        'allow-unpriced': { type: 'boolean', default: false },
      },
      true,
    );
    if (positionals.length !== 1) throw new UsageError(`give exactly one model id: ${this.usage}`);
    const model = parseFlagValues(
      ModelPutSchema,
      {
        id: positionals[0],
        efforts: splitList(values.efforts),
        kind: values.kind,
        allowUnpriced: values['allow-unpriced'],
      },
      (f) => (f === 'id' ? 'MODEL' : `--${f}`),
    );
    return withDb(async (db) => {
      return presentModel(await upsertModel(db, model));
    });
  },
};
