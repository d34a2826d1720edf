import { USAGE_QUEUE } from '../src/queues/catalog.ts';
import { insertUsage } from '../src/relay/repo.ts';
import type { QueueWorker } from './definition.ts';

/** Stores the relay's metered calls; each job is one batch, inserted in one statement. */
export const usageWorker: QueueWorker<typeof USAGE_QUEUE> = {
  queue: USAGE_QUEUE,
  handlers: {
    async usageCalls(data, _job, ctx) {
      await insertUsage(ctx.db, data.rows);
      return { stored: data.rows.length };
    },
  },
};
