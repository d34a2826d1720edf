import { loadConfig } from '../../../config/env.ts';
import { onShutdownSignal } from '../../shared/closer.ts';
import { startWorkers } from '../../../workers/run.ts';
import { parseFlags, type Command } from '../command.ts';

export const command: Command = {
  usage: 'radar work [--queues ingest,rollup,geo,usage]',
  async run(argv) {
    const { values } = parseFlags(argv, { queues: { type: 'string' } });
    const names = (values.queues ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const running = await startWorkers(loadConfig(), names);
    onShutdownSignal(running.context.log, () => running.close());
  },
};
