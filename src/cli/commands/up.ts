import { parseFlags, type Command } from '../command.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { supervise } from '../supervisor.ts';

export const command: Command = {
  usage: 'radar up [--workers N]',
  async run(argv) {
    const { values } = parseFlags(argv, { workers: { type: 'string' } });
    const workers = values.workers === undefined ? 1 : Number(values.workers);
    if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new UsageError('--workers must be 1 to 64');
    await supervise({ workers });
  },
};
