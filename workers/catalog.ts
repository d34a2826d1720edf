import type { QueueWorker } from './definition.ts';

/**
 * Every queue a `radar work` process can serve, by name. Each feature adds its processor
 * here; `radar work --queues a,b` picks a subset.
 */
export const QUEUE_WORKERS: readonly QueueWorker[] = [];
