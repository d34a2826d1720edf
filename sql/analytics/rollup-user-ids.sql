-- Takes ${siteId}, ${hours}. Gives every user of an event in those hours a dense id, the next
-- free ones in order of first activity. Safe because the caller holds the site's rollup lock.
INSERT INTO analytics_user_ids (site_id, external_user_id, id)
SELECT ${siteId}, n.external_user_id, base.top + row_number() OVER (ORDER BY n.first_at, n.external_user_id)
FROM (
  SELECT e.external_user_id, min(e.occurred_at) AS first_at
  FROM unnest(${hours}::timestamptz[]) AS h(hour)
  CROSS JOIN LATERAL (SELECT * FROM ingest_events x WHERE x.site_id = ${siteId} AND x.occurred_at >= h.hour AND x.occurred_at < h.hour + interval '1 hour' OFFSET 0) e
  WHERE e.external_user_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM analytics_user_ids k WHERE k.site_id = ${siteId} AND k.external_user_id = e.external_user_id)
  GROUP BY e.external_user_id
) n
CROSS JOIN (SELECT coalesce(max(id), -1) AS top FROM analytics_user_ids WHERE site_id = ${siteId}) base
