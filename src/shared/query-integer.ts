import { z } from 'zod';

/** A query-string integer in [min, max] (digits only, so "1e3", "0x10" and " 5" are refused), `fallback` when absent. */
export const queryInteger = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a non-negative integer')
    .transform(Number)
    .pipe(z.int().min(min).max(max))
    .default(fallback);
