import { findAccountByEmail } from '../../accounts/repo.ts';
import { hashSecret } from '../../auth/secrets.ts';
import { HttpError } from '../../errors/http-error.ts';
import { newRelayKey } from '../../relay/keys.ts';
import { splitList } from '../../relay/names.ts';
import { createAccountKey, settingsOf } from '../../relay/owned-keys.ts';
import { insertKey } from '../../relay/repo.ts';
import { GroupNameSchema, KeyCreateSchema } from '../../relay/schemas.ts';
import { parseFlags, parseFlagValues, required, type Command } from '../command.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { withDb } from '../with-db.ts';
import { isForeignKeyViolation } from '../../db/pg-errors.ts';

const FLAGS: Record<string, string> = {
  requestsPerMinute: '--rpm',
  tokensPerMinute: '--tpm',
  budget: '--budget',
  expiresAt: '--expires-at',
};

export const command: Command = {
  usage:
    "radar relay key create --name N --models m1,m2|'*' [--account EMAIL | --group G] [--rpm N] [--tpm N] [--budget AMOUNT --currency C --period day|month|total] [--expires-at T]",
  async run(argv) {
    const { values } = parseFlags(argv, {
      name: { type: 'string' },
      models: { type: 'string' },
      account: { type: 'string' },
      group: { type: 'string' },
      rpm: { type: 'string' },
      tpm: { type: 'string' },
      budget: { type: 'string' },
      currency: { type: 'string' },
      period: { type: 'string' },
      'expires-at': { type: 'string' },
    });
    if (values.account !== undefined && values.group !== undefined)
      throw new UsageError("--group: an account's key is in the account's group; give --account or --group, not both");
    const group =
      values.group === undefined ? 'default' : parseFlagValues(GroupNameSchema, values.group, () => '--group');
    const k = parseFlagValues(
      KeyCreateSchema,
      {
        name: required(values.name, 'name'),
        models: splitList(required(values.models, 'models')),
        requestsPerMinute: values.rpm === undefined ? null : Number(values.rpm),
        tokensPerMinute: values.tpm === undefined ? null : Number(values.tpm),
        budget:
          values.budget === undefined
            ? null
            : {
                amount: values.budget,
                currency: required(values.currency, 'currency'),
                period: required(values.period, 'period'),
              },
        expiresAt: values['expires-at'] ?? null,
      },
      (f) => {
        if (f === 'models') throw new UsageError("--models: a comma list of model ids, or '*'");
        return FLAGS[f] ?? `--${f}`;
      },
    );
    return withDb(async (db) => {
      if (values.account !== undefined) {
        const account = await findAccountByEmail(db, values.account);
        if (!account) throw new UsageError(`--account: no account with the email ${values.account}`);
        try {
          const { row, key } = await createAccountKey(db, account.id, k);
          return { id: row.id, key };
        } catch (err) {
          if (err instanceof HttpError && err.errors?.length)
            throw new UsageError(`--models: ${err.errors[0]!.message}`);
          throw err;
        }
      }
      const key = newRelayKey();
      try {
        const { id } = await insertKey(db, {
          ...settingsOf(k),
          name: k.name,
          models: k.models,
          accountId: null,
          group,
          keyHash: hashSecret(key),
          prefix: key.slice(0, 10),
        });
        return { id, key };
      } catch (err) {
        if (isForeignKeyViolation(err))
          throw new UsageError(`--group: no group named ${group}; create it with "radar relay group set"`);
        throw err;
      }
    });
  },
};
