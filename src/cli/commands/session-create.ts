import { findAccountByEmail } from '../../accounts/repo.ts';
import { openSession } from '../../auth/sessions.ts';
import { parseFlags, required, type Command } from '../command.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { withDb } from '../with-db.ts';

export const command: Command = {
  usage: 'radar session create --email E [--ttl-hours H]',
  async run(argv) {
    const { values } = parseFlags(argv, { email: { type: 'string' }, 'ttl-hours': { type: 'string' } });
    const email = required(values.email, 'email');
    const ttl = values['ttl-hours'] === undefined ? null : Number(values['ttl-hours']);
    if (ttl !== null && !(Number.isInteger(ttl) && ttl >= 1 && ttl <= 24 * 365)) {
      throw new UsageError('--ttl-hours must be a whole number from 1 to 8760');
    }
    return withDb(async (db, config) => {
      const account = await findAccountByEmail(db, email);
      if (!account) throw new UsageError(`no account with email ${email}`);
      const s = await openSession(db, account.id, ttl ?? config.SESSION_TTL_HOURS);
      return { token: s.token, expires_at: s.expiresAt.toISOString() };
    });
  },
};
