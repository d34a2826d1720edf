import { findAccountByEmail } from '../../accounts/repo.ts';
import { setAccountGroup } from '../../relay/repo.ts';
import { GroupNameSchema } from '../../relay/schemas.ts';
import { parseFlags, parseFlagValues, required, type Command } from '../command.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { withDb } from '../with-db.ts';
import { isForeignKeyViolation } from '../../db/pg-errors.ts';

export const command: Command = {
  usage: 'radar account group --email E --group G',
  async run(argv) {
    const { values } = parseFlags(argv, { email: { type: 'string' }, group: { type: 'string' } });
    const email = required(values.email, 'email');
    const group = parseFlagValues(GroupNameSchema, required(values.group, 'group'), () => '--group');
    return withDb(async (db) => {
      const account = await findAccountByEmail(db, email);
      if (!account) throw new UsageError(`--email: no account with the email ${email}`);
      try {
        const row = await setAccountGroup(db, account.id, group);
        return { id: account.id, email: account.email, group: row!.group };
      } catch (err) {
        if (isForeignKeyViolation(err))
          throw new UsageError(`--group: no group named ${group}; create it with "radar relay group set"`);
        throw err;
      }
    });
  },
};
