import { z } from 'zod';
import { isTimeZone } from '../../config/env.ts';
import { normalizeTimestamp } from '../ingest/timestamp.ts';

const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A local date `YYYY-MM-DD` (a whole day in `tz`) or a timestamp with a zone, kept as UTC. */
const Bound = z.string().transform((v, ctx) => {
  if (LOCAL_DATE.test(v)) {
    const r = normalizeTimestamp(`${v}T00:00:00Z`);
    if ('utc' in r) return v;
    ctx.issues.push({ code: 'custom', message: r.error, input: v });
    return z.NEVER;
  }
  const r = normalizeTimestamp(v);
  if ('utc' in r) return r.utc;
  ctx.issues.push({ code: 'custom', message: 'must be a date YYYY-MM-DD or an ISO 8601 date-time with a zone', input: v });
  return z.NEVER;
});

const base = {
  /** Inclusive. @defaultValue 29 local days before `to`'s last day */
  from: Bound.optional(),
  /** Exclusive. @defaultValue the start of tomorrow in `tz` */
  to: Bound.optional(),
  /** IANA zone days and weeks are cut in. @defaultValue RADAR_TZ */
  tz: z.string().refine(isTimeZone, 'must be an IANA time zone, e.g. Asia/Shanghai').optional(),
};

/** Query of every analytics view but timeseries. Unknown parameters are refused. */
export const AnalyticsQuerySchema = z.strictObject(base);

/** Query of the timeseries view. */
export const TimeseriesQuerySchema = z.strictObject({
  ...base,
  interval: z.enum(['day', 'week', 'month']).default('day'),
});

export type AnalyticsQuery = z.output<typeof AnalyticsQuerySchema>;
