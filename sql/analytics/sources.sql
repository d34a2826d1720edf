-- Figures per acquisition source over one window. Takes ${siteId} and the window's bucket
-- ranges ${grains}, ${los}, ${his}. Returns per channel (as recorded on the event; '' none),
-- campaign_id ('' none), metric and currency the sum. LATERAL: see series.sql.
SELECT c.channel, c.campaign_id, c.metric, c.currency, sum(c.value)::bigint AS value
FROM unnest(${grains}::text[], ${los}::timestamptz[], ${his}::timestamptz[]) AS r(grain, lo, hi)
CROSS JOIN LATERAL (
  SELECT c.channel, c.campaign_id, c.metric, c.currency, c.value FROM analytics_counts c
  WHERE c.site_id = ${siteId} AND c.grain = r.grain AND c.per_source = true AND c.bucket >= r.lo AND c.bucket < r.hi
  OFFSET 0
) c
GROUP BY c.channel, c.campaign_id, c.metric, c.currency
