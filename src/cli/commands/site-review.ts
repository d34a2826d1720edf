import { isUuid } from '../../shared/ids.ts';
import { presentSite } from '../../sites/present.ts';
import { reviewSite } from '../../sites/repo.ts';
import { parseFlags, required, type Command } from '../command.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { withDb } from '../with-db.ts';

export const command: Command = {
  usage: 'radar site review --site ID --decision approved|rejected',
  async run(argv) {
    const { values } = parseFlags(argv, { site: { type: 'string' }, decision: { type: 'string' } });
    const site = required(values.site, 'site');
    const decision = required(values.decision, 'decision');
    if (decision !== 'approved' && decision !== 'rejected')
      throw new UsageError('--decision must be approved or rejected');
    if (!isUuid(site)) throw new UsageError('--site must be a site id (UUID)');
    return withDb(async (db) => {
      const row = await reviewSite(db, site, decision);
      if (!row) throw new UsageError(`no site ${site}`);
      return presentSite(row);
    });
  },
};
