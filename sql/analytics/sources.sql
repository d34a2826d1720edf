-- Figures per acquisition source over one window. Takes ${siteId}, the window's bucket ranges
-- ${grains}, ${los}, ${his} and raw spans (edge-counts.sql, ${edgeCounts}). Returns per channel
-- (as recorded on the event; '' none), campaign_id ('' none), metric and currency the sum.
-- LATERAL: see series.sql.
WITH ${edgeCounts:raw}
SELECT x.channel, x.campaign_id, x.metric, x.currency, sum(x.value)::bigint AS value
FROM (
  SELECT c.channel, c.campaign_id, c.metric, c.currency, c.value
  FROM unnest(${grains}::text[], ${los}::timestamptz[], ${his}::timestamptz[]) AS r(grain, lo, hi)
  CROSS JOIN LATERAL (
    SELECT c.channel, c.campaign_id, c.metric, c.currency, c.value FROM analytics_counts c
    WHERE c.site_id = ${siteId} AND c.grain = r.grain AND c.per_source = true AND c.bucket >= r.lo AND c.bucket < r.hi
    OFFSET 0
  ) c
  UNION ALL
  SELECT e.channel, e.campaign_id, e.metric, e.currency, e.value FROM edge e WHERE e.per_source
) x
GROUP BY x.channel, x.campaign_id, x.metric, x.currency
