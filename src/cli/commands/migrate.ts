import { loadConfig } from '../../../config/env.ts';
import { migrate } from '../../db/migrate.ts';
import { parseFlags, type Command } from '../command.ts';

export const command: Command = {
  usage: 'radar migrate',
  async run(argv) {
    parseFlags(argv, {});
    const config = loadConfig();
    return { ...(await migrate(config.DATABASE_URL)) };
  },
};
