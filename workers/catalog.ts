import type { QueueName } from '../src/queues/catalog.ts';
import type { QueueWorker } from './definition.ts';
import { exportsWorker } from './exports.ts';
import { geoWorker } from './geo.ts';
import { ingestWorker } from './ingest.ts';
import { rollupWorker } from './rollup.ts';
import { usageWorker } from './usage.ts';

/**
 * The processors of every queue in the job catalog (src/queues/catalog.ts), by queue: a queue
 * or job added there does not type-check until it has its handler here.
 */
export const QUEUE_WORKERS: { readonly [Q in QueueName]: QueueWorker<Q> } = {
  ingest: ingestWorker,
  rollup: rollupWorker,
  usage: usageWorker,
  geo: geoWorker,
  exports: exportsWorker,
};
