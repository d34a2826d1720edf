import { z } from 'zod';
import { DEFAULT_EFFORTS } from '../../relay/protocol.ts';
import { EffortSchema, ModelIdSchema, splitList } from '../../relay/names.ts';
import { upsertModel } from '../../relay/repo.ts';
import { parseFlags, UsageError, type Command } from '../command.ts';
import { withDb } from '../with-db.ts';

const ModelSchema = z.object({
  id: ModelIdSchema,
  efforts: z.array(EffortSchema),
  kind: z.enum(['chat', 'embedding'], { error: 'must be chat or embedding' }),
});

export const command: Command = {
  usage: 'radar relay model set MODEL [--efforts low,medium,high,xhigh,…] [--kind chat|embedding]',
  async run(argv) {
    const { values, positionals } = parseFlags(argv, {
      efforts: { type: 'string', default: DEFAULT_EFFORTS.join(',') },
      kind: { type: 'string', default: 'chat' },
    }, true);
    if (positionals.length !== 1) throw new UsageError(`give exactly one model id: ${this.usage}`);
    const parsed = ModelSchema.safeParse({ id: positionals[0], efforts: splitList(values.efforts), kind: values.kind });
    if (!parsed.success) {
      const i = parsed.error.issues[0]!;
      throw new UsageError(`${i.path[0] === 'id' ? 'MODEL' : `--${String(i.path[0])}`}: ${i.message}`);
    }
    return withDb(async (db) => {
      const m = await upsertModel(db, parsed.data);
      return { id: m.id, efforts: m.efforts, kind: m.kind };
    });
  },
};
