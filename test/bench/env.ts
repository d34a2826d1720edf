/** Where benchmarks find PostgreSQL (a maintenance database) and Redis. */
export const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A numeric knob from the environment; unset or empty gives `fallback`. `count` knobs are
 * whole numbers from 0, others any number above 0.
 */
export function envNumber(name: string, fallback: number, kind: 'count' | 'positive'): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  const ok = kind === 'count' ? Number.isInteger(n) && n >= 0 : Number.isFinite(n) && n > 0;
  if (!ok) throw new Error(`${name} must be ${kind === 'count' ? 'a whole number from 0' : 'a number above 0'}`);
  return n;
}
