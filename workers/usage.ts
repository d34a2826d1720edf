import { UnrecoverableError } from 'bullmq';
import { insertUsage } from '../src/relay/repo.ts';
import { USAGE_QUEUE, UsageJobSchema } from '../src/relay/usage-job.ts';
import type { QueueWorker } from './definition.ts';

/** Stores the relay's metered calls; each job is one batch, inserted in one statement. */
export const usageWorker: QueueWorker = {
  queue: USAGE_QUEUE,
  async process(job, ctx) {
    const parsed = UsageJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid usage job: ${parsed.error.issues[0]!.message}`);
    await insertUsage(ctx.db, parsed.data.rows);
    return { stored: parsed.data.rows.length };
  },
};
