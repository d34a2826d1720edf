-- A site's model calls through the relay (relay_usage.site_id, migration 0019) per local day
-- of a window and currency. grp: the day's index from 0. currency is null for calls to an
-- unpriced model. unpriced: calls without a cost (an unpriced model, or a provider that
-- reported no tokens), never counted as 0; a call refused before it named a model (currency
-- null, not unpriced) cost nothing.
-- Takes ${siteId}; ${starts} (timestamptz[], the days' starts, ascending) with ${hlos}, ${hhis}
-- (timestamptz[], each day's whole UTC hours [hlo, hhi), hlo = hhi for none): those hours are
-- read from relay_site_hours (migration 0022: one row per hour and currency, whatever the number
-- of calls) in one index range over the window, each row given to its day by the days' starts;
-- and ${rawLos}, ${rawHis}, ${rawGroups} (the parts of days that cut an hour: a window of
-- instants, a zone off whole hours), read from relay_usage itself, ranges of
-- relay_usage_site_at_idx.
SELECT u.grp, u.currency,
       sum(u.calls)::int AS calls,
       sum(u.unpriced)::int AS unpriced,
       sum(u.nanos)::bigint AS nanos,
       max(u.last_at) AS last_at
FROM (
  SELECT d.grp - 1 AS grp, h.currency, h.calls, h.unpriced_calls AS unpriced, h.cost_nanos AS nanos, h.last_at
  FROM relay_site_hours h
  CROSS JOIN LATERAL (SELECT width_bucket(h.hour, ${starts}::timestamptz[]) AS grp) d
  WHERE h.site_id = ${siteId}
    AND h.hour >= (${hlos}::timestamptz[])[1] AND h.hour < (${hhis}::timestamptz[])[cardinality(${hhis}::timestamptz[])]
    AND h.hour >= (${hlos}::timestamptz[])[d.grp] AND h.hour < (${hhis}::timestamptz[])[d.grp]
  UNION ALL
  SELECT s.grp, x.currency, 1, (x.unpriced OR (x.cost_nanos IS NULL AND x.currency IS NOT NULL))::int,
         coalesce(x.cost_nanos, 0), x.at
  FROM unnest(${rawLos}::timestamptz[], ${rawHis}::timestamptz[], ${rawGroups}::int[]) AS s(lo, hi, grp)
  CROSS JOIN LATERAL (SELECT * FROM relay_usage x WHERE x.site_id = ${siteId} AND x.at >= s.lo AND x.at < s.hi OFFSET 0) x
) u
GROUP BY u.grp, u.currency
