import { z } from 'zod';
import { findAccountByEmail } from '../../accounts/repo.ts';
import { hashSecret } from '../../auth/secrets.ts';
import { HttpError } from '../../errors/http-error.ts';
import { newRelayKey } from '../../relay/keys.ts';
import { splitList } from '../../relay/names.ts';
import { createAccountKey } from '../../relay/owned-keys.ts';
import { insertKey } from '../../relay/repo.ts';
import { GroupNameSchema, ModelListSchema } from '../../relay/schemas.ts';
import { text } from '../../shared/text.ts';
import { parseFlags, parseFlagValues, required, UsageError, type Command } from '../command.ts';
import { withDb } from '../with-db.ts';

const KeySchema = z.object({
  name: text({ min: 1, max: 160 }),
  models: ModelListSchema,
  group: GroupNameSchema.nullable(),
});

export const command: Command = {
  usage: "radar relay key create --name N --models m1,m2|'*' [--account EMAIL | --group G]",
  async run(argv) {
    const { values } = parseFlags(argv, { name: { type: 'string' }, models: { type: 'string' }, account: { type: 'string' }, group: { type: 'string' } });
    if (values.account !== undefined && values.group !== undefined) throw new UsageError("--group: an account's key is in the account's group; give --account or --group, not both");
    const k = parseFlagValues(KeySchema, { name: required(values.name, 'name'), models: splitList(required(values.models, 'models')), group: values.group ?? null }, (f) => {
      if (f === 'models') throw new UsageError("--models: a comma list of model ids, or '*'");
      return `--${f}`;
    });
    return withDb(async (db) => {
      if (values.account !== undefined) {
        const account = await findAccountByEmail(db, values.account);
        if (!account) throw new UsageError(`--account: no account with the email ${values.account}`);
        try {
          const { row, key } = await createAccountKey(db, account.id, k);
          return { id: row.id, key };
        } catch (err) {
          if (err instanceof HttpError && err.errors?.length) throw new UsageError(`--models: ${err.errors[0]!.message}`);
          throw err;
        }
      }
      const key = newRelayKey();
      try {
        const { id } = await insertKey(db, { name: k.name, models: k.models, accountId: null, group: k.group ?? 'default', keyHash: hashSecret(key), prefix: key.slice(0, 10) });
        return { id, key };
      } catch (err) {
        if ((err as { code?: string }).code === '23503') throw new UsageError(`--group: no group named ${k.group}; create it with "radar relay group set"`);
        throw err;
      }
    });
  },
};
