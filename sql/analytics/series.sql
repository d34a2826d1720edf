-- Site totals over ranges of buckets. Takes ${siteId} and the ranges as parallel arrays
-- ${grains} (text[]), ${los}, ${his} (timestamptz[], bucket starts, hi exclusive), ${groups}
-- (int[]): ranges of one group make up one period (a day, or the whole window); ${metrics}
-- (text[]): only these metrics, null for all. Returns per
-- group, metric, dim and currency the sum, and the first/last occurred_at of records:* metrics.
-- LATERAL makes each range one primary-key range scan; a join lets the planner hash the whole
-- site's rows against the ranges instead.
SELECT r.grp, c.metric, c.dim, c.currency, sum(c.value)::bigint AS value, min(c.first_at) AS first_at, max(c.last_at) AS last_at
FROM unnest(${grains}::text[], ${los}::timestamptz[], ${his}::timestamptz[], ${groups}::int[]) AS r(grain, lo, hi, grp)
CROSS JOIN LATERAL (
  SELECT c.metric, c.dim, c.currency, c.value, c.first_at, c.last_at FROM analytics_counts c
  WHERE c.site_id = ${siteId} AND c.grain = r.grain AND c.per_source = false AND c.bucket >= r.lo AND c.bucket < r.hi
    AND (${metrics}::text[] IS NULL OR c.metric = ANY(${metrics}::text[]))
  OFFSET 0
) c
GROUP BY r.grp, c.metric, c.dim, c.currency
