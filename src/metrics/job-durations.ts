import type { Redis } from 'ioredis';

/** Upper bounds (seconds) of the job-duration histogram buckets. */
export const JOB_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;

/**
 * Job durations live in Redis hashes, not in process memory: workers have no HTTP listener
 * and run on many hosts, and the front door's /metrics must show them all. One HINCRBY per
 * bucket per job is cheap next to the job itself.
 */
export function jobDurationKey(prefix: string, queue: string, status: 'completed' | 'failed'): string {
  return `${prefix}:metrics:job_duration:${queue}:${status}`;
}

export async function recordJobDuration(
  redis: Redis,
  prefix: string,
  queue: string,
  status: 'completed' | 'failed',
  seconds: number,
): Promise<void> {
  const key = jobDurationKey(prefix, queue, status);
  const bucket = JOB_BUCKETS.find((le) => seconds <= le);
  const tx = redis.multi();
  if (bucket !== undefined) tx.hincrby(key, `le_${bucket}`, 1);
  tx.hincrby(key, 'count', 1);
  tx.hincrbyfloat(key, 'sum', seconds);
  await tx.exec();
}

export interface JobDurationSnapshot {
  buckets: Map<number, number>;
  count: number;
  sum: number;
}

export async function readJobDurations(
  redis: Redis,
  prefix: string,
  queue: string,
  status: 'completed' | 'failed',
): Promise<JobDurationSnapshot> {
  const h = await redis.hgetall(jobDurationKey(prefix, queue, status));
  const buckets = new Map<number, number>();
  for (const le of JOB_BUCKETS) buckets.set(le, Number(h[`le_${le}`] ?? 0));
  return { buckets, count: Number(h.count ?? 0), sum: Number(h.sum ?? 0) };
}
