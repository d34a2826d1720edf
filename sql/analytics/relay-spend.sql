-- A site's model calls through the relay (relay_usage.site_id, migration 0019) per local day
-- of a window and currency. Takes ${siteId} and the parallel arrays ${los}, ${his}
-- (timestamptz[], the days' bounds, hi exclusive). grp: the day's index from 0. currency is
-- null for calls to an unpriced model. unpriced: calls without a cost (an unpriced model, or a
-- provider that reported no tokens), never counted as 0; a call refused before it named a
-- model (currency null, not unpriced) cost nothing. A day's whole UTC hours are read from
-- relay_site_hours (migration 0022: one row per hour and currency, whatever the number of
-- calls); the ends of a day that cut an hour (a window of instants, a zone off whole hours)
-- from relay_usage itself, ranges of relay_usage_site_at_idx read by the index alone.
SELECT (d.grp - 1)::int AS grp, u.currency,
       sum(u.calls)::int AS calls,
       sum(u.unpriced)::int AS unpriced,
       sum(u.nanos)::bigint AS nanos,
       max(u.last_at) AS last_at
FROM unnest(${los}::timestamptz[], ${his}::timestamptz[]) WITH ORDINALITY AS d(lo, hi, grp)
-- The day's whole hours [hlo, hhi); empty when the day lies within one hour.
CROSS JOIN LATERAL (
  SELECT CASE WHEN date_trunc('hour', d.lo, 'UTC') = d.lo THEN d.lo
              ELSE date_trunc('hour', d.lo, 'UTC') + interval '1 hour' END AS hlo,
         date_trunc('hour', d.hi, 'UTC') AS hhi
) b
CROSS JOIN LATERAL (
  SELECT h.currency, h.calls, h.unpriced_calls AS unpriced, h.cost_nanos AS nanos, h.last_at FROM relay_site_hours h
  WHERE h.site_id = ${siteId} AND h.hour >= b.hlo AND h.hour < b.hhi
  UNION ALL
  SELECT x.currency, 1, (x.unpriced OR (x.cost_nanos IS NULL AND x.currency IS NOT NULL))::int,
         coalesce(x.cost_nanos, 0), x.at
  FROM relay_usage x
  WHERE x.site_id = ${siteId}
    AND ((x.at >= d.lo AND x.at < least(b.hlo, d.hi)) OR (x.at >= greatest(b.hhi, b.hlo) AND x.at < d.hi))
  OFFSET 0
) u
GROUP BY d.grp, u.currency
