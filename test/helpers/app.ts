import type { Config } from '../../config/env.ts';
import type { Logger } from '../../src/log.ts';
import { startFrontDoor, type FrontDoor } from '../../src/front-door.ts';
import { startWorkers, type RunningWorkers } from '../../workers/run.ts';
import { testServices, type TestServices } from './services.ts';

export interface TestApp extends TestServices {
  /** Base URL of the front door, e.g. http://127.0.0.1:41234 */
  url: string;
  door: FrontDoor;
  workers: RunningWorkers | null;
  close(): Promise<void>;
}

/**
 * A front door (and, when `workers` names queues, workers) in this process against a
 * private database and key prefix. `PUBLIC_ORIGIN` is the listener's real origin.
 */
export async function startTestApp(
  opts: { workers?: readonly string[]; env?: Record<string, string>; log?: Logger } = {},
): Promise<TestApp> {
  const services = await testServices(opts.env);
  const door = await startFrontDoor(services.config, opts.log);
  const url = `http://127.0.0.1:${door.port}`;
  // The origin rule compares with the port actually bound, known only after listening.
  (door.app.config as { PUBLIC_ORIGIN: string }).PUBLIC_ORIGIN = url;
  const config: Config = door.app.config;
  const workers = opts.workers ? await startWorkers(config, opts.workers) : null;
  return {
    ...services,
    config,
    url,
    door,
    workers,
    async close() {
      await workers?.close();
      await door.close();
      await services.cleanup();
    },
  };
}
