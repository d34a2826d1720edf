import { presentGroup } from '../../relay/admin-routes.ts';
import { splitList } from '../../relay/names.ts';
import { upsertGroup } from '../../relay/repo.ts';
import { GroupNameSchema, GroupPutSchema } from '../../relay/schemas.ts';
import { parseFlags, parseFlagValues, required, type Command } from '../command.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { withDb } from '../with-db.ts';

const FLAGS: Record<string, string> = { models: '--models', requestsPerMinute: '--rpm', tokensPerMinute: '--tpm' };

export const command: Command = {
  usage: "radar relay group set NAME --models m1,m2|'*' [--rpm N] [--tpm N]",
  async run(argv) {
    const { values, positionals } = parseFlags(
      argv,
      { models: { type: 'string' }, rpm: { type: 'string' }, tpm: { type: 'string' } },
      true,
    );
    if (positionals.length !== 1) throw new UsageError(`give exactly one group name: ${this.usage}`);
    const name = parseFlagValues(GroupNameSchema, positionals[0], () => 'NAME');
    const g = parseFlagValues(
      GroupPutSchema,
      {
        models: splitList(required(values.models, 'models')),
        requestsPerMinute: values.rpm === undefined ? null : Number(values.rpm),
        tokensPerMinute: values.tpm === undefined ? null : Number(values.tpm),
      },
      (f) => FLAGS[f] ?? f,
    );
    return withDb(async (db) =>
      presentGroup(await upsertGroup(db, { name, models: g.models, rpm: g.requestsPerMinute, tpm: g.tokensPerMinute })),
    );
  },
};
