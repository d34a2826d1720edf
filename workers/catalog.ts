import type { QueueWorker } from './definition.ts';
import { geoWorker } from './geo.ts';
import { ingestWorker } from './ingest.ts';
import { rollupWorker } from './rollup.ts';
import { usageWorker } from './usage.ts';

/**
 * Every queue a `radar work` process can serve, by name. Each feature adds its processor
 * here; `radar work --queues a,b` picks a subset.
 */
export const QUEUE_WORKERS: readonly QueueWorker[] = [
  ingestWorker,
  rollupWorker,
  usageWorker,
  geoWorker,
];
