-- Site totals over ranges of buckets. Takes ${siteId} and the ranges as parallel arrays
-- ${grains} (text[]), ${los}, ${his} (timestamptz[], bucket starts, hi exclusive), ${groups}
-- (int[]), with the raw spans of edge-counts.sql (${edgeCounts}): ranges and spans of one group
-- make up one period (a day, or the whole window); ${metrics} (text[]): only these metrics, null
-- for all. Returns per group, metric, dim and currency the sum, and the first/last occurred_at
-- of records:* metrics.
-- LATERAL makes each range one primary-key range scan; a join lets the planner hash the whole
-- site's rows against the ranges instead.
WITH ${edgeCounts:raw}
SELECT x.grp, x.metric, x.dim, x.currency, sum(x.value)::bigint AS value, min(x.first_at) AS first_at, max(x.last_at) AS last_at
FROM (
  SELECT r.grp, c.metric, c.dim, c.currency, c.value, c.first_at, c.last_at
  FROM unnest(${grains}::text[], ${los}::timestamptz[], ${his}::timestamptz[], ${groups}::int[]) AS r(grain, lo, hi, grp)
  CROSS JOIN LATERAL (
    SELECT c.metric, c.dim, c.currency, c.value, c.first_at, c.last_at FROM analytics_counts c
    WHERE c.site_id = ${siteId} AND c.grain = r.grain AND c.per_source = false AND c.bucket >= r.lo AND c.bucket < r.hi
      AND (${metrics}::text[] IS NULL OR c.metric = ANY(${metrics}::text[]))
    OFFSET 0
  ) c
  UNION ALL
  SELECT e.grp, e.metric, e.dim, e.currency, e.value,
    CASE WHEN e.metric LIKE 'records:%' THEN e.at END, CASE WHEN e.metric LIKE 'records:%' THEN e.at END
  FROM edge e
  WHERE NOT e.per_source AND (${metrics}::text[] IS NULL OR e.metric = ANY(${metrics}::text[]))
) x
GROUP BY x.grp, x.metric, x.dim, x.currency
