import { z } from 'zod';
import { Timestamp } from '../ingest/schemas.ts';

const integer = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a non-negative integer')
    .transform(Number)
    .pipe(z.int().min(min).max(max))
    .default(fallback);

/** Query of GET /sites/{siteId}/<collection> (spec 4.3, CONTRACT §4). Unknown parameters are refused. */
export const RecordListQuerySchema = z
  .strictObject({
    limit: integer(1, 200, 50),
    offset: integer(0, 10_000, 0),
    /** Inclusive lower bound on occurred_at. */
    from: Timestamp.optional(),
    /** Exclusive upper bound on occurred_at. */
    to: Timestamp.optional(),
  })
  .superRefine((q, ctx) => {
    if (q.from !== undefined && q.to !== undefined && Date.parse(q.to) < Date.parse(q.from)) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
    }
  });

export type RecordListQuery = z.output<typeof RecordListQuerySchema>;

/** The largest offset a page may start at; deeper pages need a narrower from/to window. */
export const MAX_OFFSET = 10_000;
