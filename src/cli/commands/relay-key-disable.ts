import { disableKey } from '../../relay/repo.ts';
import { isUuid } from '../../shared/ids.ts';
import { parseFlags, required, type Command } from '../command.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { withDb } from '../with-db.ts';

export const command: Command = {
  usage: 'radar relay key disable --id ID',
  async run(argv) {
    const { values } = parseFlags(argv, { id: { type: 'string' } });
    const id = required(values.id, 'id');
    if (!isUuid(id)) throw new UsageError('--id must be a key id (UUID)');
    return withDb(async (db) => {
      const row = await disableKey(db, id);
      if (!row) throw new UsageError(`no relay key ${id}`);
      return { id: row.id, disabled_at: row.disabled_at.toISOString() };
    });
  },
};
