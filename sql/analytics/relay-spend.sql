-- A site's model calls through the relay (relay_usage.site_id, migration 0019) per local day
-- of a window and currency. Takes ${siteId} and the parallel arrays ${los}, ${his}
-- (timestamptz[], the days' bounds, hi exclusive). grp: the day's index from 0. currency is
-- null for calls to an unpriced model. unpriced: calls without a cost (an unpriced model, or a
-- provider that reported no tokens), never counted as 0; a call refused before it named a
-- model (currency null, not unpriced) cost nothing. Each day is one range of
-- relay_usage_site_at_idx, read by the index alone.
SELECT (d.grp - 1)::int AS grp, u.currency,
       count(*)::int AS calls,
       count(*) FILTER (WHERE u.unpriced OR (u.cost_nanos IS NULL AND u.currency IS NOT NULL))::int AS unpriced,
       coalesce(sum(u.cost_nanos), 0)::bigint AS nanos,
       max(u.at) AS last_at
FROM unnest(${los}::timestamptz[], ${his}::timestamptz[]) WITH ORDINALITY AS d(lo, hi, grp)
CROSS JOIN LATERAL (
  SELECT x.currency, x.cost_nanos, x.unpriced, x.at FROM relay_usage x
  WHERE x.site_id = ${siteId} AND x.at >= d.lo AND x.at < d.hi OFFSET 0
) u
GROUP BY d.grp, u.currency
