import { loadConfig } from '../../../config/env.ts';
import { startFrontDoor } from '../../front-door.ts';
import { onShutdownSignal } from '../../shared/closer.ts';
import { parseFlags, type Command } from '../command.ts';

export const command: Command = {
  usage: 'radar serve',
  async run(argv) {
    parseFlags(argv, {});
    const door = await startFrontDoor(loadConfig());
    onShutdownSignal(door.app.log, () => door.close());
  },
};
