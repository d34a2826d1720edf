import type { Redis } from 'ioredis';

/**
 * Ingest batches the workers rejected, by problem code, in one Redis hash: for the reason
 * job durations live there (job-durations.ts), the front door's /metrics must see every worker.
 */
export function batchRejectionsKey(prefix: string): string {
  return `${prefix}:metrics:ingest_batches_rejected`;
}

export async function countRejectedBatch(redis: Redis, prefix: string, code: string): Promise<void> {
  await redis.hincrby(batchRejectionsKey(prefix), code, 1);
}

export async function readRejectedBatches(redis: Redis, prefix: string): Promise<Map<string, number>> {
  return new Map(Object.entries(await redis.hgetall(batchRejectionsKey(prefix))).map(([code, n]) => [code, Number(n)]));
}
