import { z } from 'zod';
import { isTimeZone } from '../shared/time-zone.ts';
import { queryInteger } from '../shared/query-integer.ts';
import { normalizeTimestamp } from '../ingest/timestamp.ts';

const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A local date `YYYY-MM-DD` (the start of that day in `tz`) or any instant with a zone, kept as UTC. */
const Bound = z.string().transform((v, ctx) => {
  if (LOCAL_DATE.test(v)) {
    const r = normalizeTimestamp(`${v}T00:00:00Z`);
    if ('utc' in r) return v;
    ctx.issues.push({ code: 'custom', message: r.error, input: v });
    return z.NEVER;
  }
  const r = normalizeTimestamp(v);
  if ('utc' in r) return r.utc;
  ctx.issues.push({
    code: 'custom',
    message: 'must be a date YYYY-MM-DD or an ISO 8601 date-time with a zone',
    input: v,
  });
  return z.NEVER;
});

/** The report window's parameters (src/analytics/window.ts), of analytics views and GEO reports. */
export const windowParams = {
  /** Inclusive. @defaultValue the start of the local day 29 days before the window's last */
  from: Bound.optional(),
  /** Exclusive. @defaultValue now */
  to: Bound.optional(),
  /** IANA zone days and weeks are cut in. @defaultValue RADAR_TZ */
  tz: z.string().refine(isTimeZone, 'must be an IANA time zone, e.g. Asia/Shanghai').optional(),
};

/** Query of every analytics view but timeseries. Unknown parameters are refused. */
export const AnalyticsQuerySchema = z.strictObject(windowParams);

/** Query of the timeseries view. */
export const TimeseriesQuerySchema = z.strictObject({
  ...windowParams,
  interval: z.enum(['day', 'week', 'month']).default('day'),
});

/** Query of the unit-economics view: `limit` customers in each list per currency. */
export const UnitEconomicsQuerySchema = z.strictObject({
  ...windowParams,
  limit: queryInteger(1, 100, 10),
});

export type AnalyticsQuery = z.output<typeof AnalyticsQuerySchema>;
export type WindowParams = AnalyticsQuery;

export { VIEW_NAMES, type ViewName } from './view-names.ts';
