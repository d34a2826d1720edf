import { z } from 'zod';
import { insertChannel } from '../../relay/repo.ts';
import { ModelIdSchema, splitList } from '../../relay/names.ts';
import { PROTOCOLS } from '../../relay/protocol.ts';
import { text } from '../../shared/text.ts';
import { parseFlags, required, UsageError, type Command } from '../command.ts';
import { withDb } from '../with-db.ts';

const ChannelSchema = z.object({
  name: text({ min: 1, max: 160 }),
  baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http or https URL such as https://api.openai.com/v1' })
    .transform((u) => u.replace(/\/+$/, '')),
  apiKey: text({ min: 1 }).nullable(),
  models: z.array(ModelIdSchema).min(1, 'at least one model'),
  protocols: z.array(z.enum(PROTOCOLS)).min(1),
  priority: z.coerce.number().int().min(-1000).max(1000),
  weight: z.coerce.number().int().min(1).max(1000),
});

export const command: Command = {
  usage: 'radar relay channel add --name N --base-url URL [--api-key K] --models m1,m2 [--protocols responses,chat,embeddings] [--priority P] [--weight W]',
  async run(argv) {
    const { values } = parseFlags(argv, {
      name: { type: 'string' },
      'base-url': { type: 'string' },
      'api-key': { type: 'string' },
      models: { type: 'string' },
      protocols: { type: 'string', default: PROTOCOLS.join(',') },
      priority: { type: 'string', default: '0' },
      weight: { type: 'string', default: '1' },
    });
    const parsed = ChannelSchema.safeParse({
      name: required(values.name, 'name'),
      baseUrl: required(values['base-url'], 'base-url'),
      apiKey: values['api-key'] ?? null,
      models: splitList(required(values.models, 'models')),
      protocols: splitList(values.protocols),
      priority: values.priority,
      weight: values.weight,
    });
    if (!parsed.success) {
      const i = parsed.error.issues[0]!;
      throw new UsageError(`--${String(i.path[0]).replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}: ${i.message}`);
    }
    return withDb(async (db) => {
      try {
        return await insertChannel(db, parsed.data);
      } catch (err) {
        if ((err as { code?: string }).code === '23505') throw new UsageError(`a channel named ${parsed.data.name} already exists`);
        throw err;
      }
    });
  },
};
