import { insertChannel } from '../../relay/repo.ts';
import { splitList } from '../../relay/names.ts';
import { PROTOCOLS } from '../../relay/protocol.ts';
import { ChannelCreateSchema } from '../../relay/schemas.ts';
import { parseFlags, parseFlagValues, required, type Command } from '../command.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { withDb } from '../with-db.ts';
import { isUniqueViolation } from '../../db/pg-errors.ts';

export const command: Command = {
  usage:
    'radar relay channel add --name N --base-url URL [--api-key K] --models m1,m2 [--protocols responses,chat,embeddings] [--priority P] [--weight W]',
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
    const channel = parseFlagValues(ChannelCreateSchema, {
      name: required(values.name, 'name'),
      baseUrl: required(values['base-url'], 'base-url'),
      apiKey: values['api-key'] ?? null,
      models: splitList(required(values.models, 'models')),
      protocols: splitList(values.protocols),
      priority: Number(values.priority),
      weight: Number(values.weight),
    });
    return withDb(async (db) => {
      try {
        return await insertChannel(db, channel);
      } catch (err) {
        if (isUniqueViolation(err)) throw new UsageError(`a channel named ${channel.name} already exists`);
        throw err;
      }
    });
  },
};
