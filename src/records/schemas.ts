import { z } from 'zod';
import { queryInteger } from '../shared/query-integer.ts';
import { Timestamp } from '../ingest/schemas.ts';

/** The window of record reads and record exports, on occurred_at. */
export const recordWindow = {
  /** Inclusive lower bound on occurred_at. */
  from: Timestamp.optional(),
  /** Exclusive upper bound on occurred_at. */
  to: Timestamp.optional(),
};

/** Refuses a window whose `to` is before its `from`, pointing at `to`. */
export function checkRecordWindow(q: { from?: string; to?: string }, ctx: z.RefinementCtx): void {
  if (q.from !== undefined && q.to !== undefined && Date.parse(q.to) < Date.parse(q.from)) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
  }
}

/** Query of GET /sites/{siteId}/<collection> (spec 4.3, CONTRACT §4). Unknown parameters are refused. */
export const RecordListQuerySchema = z
  .strictObject({
    limit: queryInteger(1, 200, 50),
    offset: queryInteger(0, 10_000, 0),
    ...recordWindow,
  })
  .superRefine(checkRecordWindow);

export type RecordListQuery = z.output<typeof RecordListQuerySchema>;

/** The largest offset a page may start at; deeper pages need a narrower from/to window. */
export const MAX_OFFSET = 10_000;
