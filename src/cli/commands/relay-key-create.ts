import { z } from 'zod';
import { hashSecret } from '../../auth/secrets.ts';
import { newRelayKey } from '../../relay/keys.ts';
import { ModelIdSchema, splitList } from '../../relay/names.ts';
import { insertKey } from '../../relay/repo.ts';
import { text } from '../../shared/text.ts';
import { parseFlags, required, UsageError, type Command } from '../command.ts';
import { withDb } from '../with-db.ts';

const KeySchema = z.object({
  name: text({ min: 1, max: 160 }),
  models: z.union([z.tuple([z.literal('*')]), z.array(ModelIdSchema).min(1)]),
  group: z.string().regex(/^[\w.-]{1,64}$/, 'letters, digits, _ . - only'),
});

export const command: Command = {
  usage: "radar relay key create --name N --models m1,m2|'*' [--group G]",
  async run(argv) {
    const { values } = parseFlags(argv, { name: { type: 'string' }, models: { type: 'string' }, group: { type: 'string', default: 'default' } });
    const parsed = KeySchema.safeParse({ name: required(values.name, 'name'), models: splitList(required(values.models, 'models')), group: values.group });
    if (!parsed.success) {
      const i = parsed.error.issues[0]!;
      throw new UsageError(`--${String(i.path[0])}: ${i.path[0] === 'models' ? "a comma list of model ids, or '*'" : i.message}`);
    }
    const key = newRelayKey();
    return withDb(async (db) => {
      const { id } = await insertKey(db, { ...parsed.data, keyHash: hashSecret(key), prefix: key.slice(0, 10) });
      return { id, key };
    });
  },
};
