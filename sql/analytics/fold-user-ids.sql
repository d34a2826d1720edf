-- Takes ${siteId}, ${hours} (timestamptz[], UTC hours rebuilt from raw records in this fold).
-- Gives the users of pending events (analytics_pending_users) outside ${hours} who have no
-- dense id yet the next free ones, in order of first activity. Safe because the caller holds
-- the site's rollup lock.
INSERT INTO analytics_user_ids (site_id, external_user_id, id)
SELECT ${siteId}, n.external_user_id, base.top + row_number() OVER (ORDER BY n.first_at, n.external_user_id)
FROM (
  SELECT u.external_user_id, min(u.bucket) AS first_at
  FROM analytics_pending_users p CROSS JOIN LATERAL unnest(p.buckets, p.users) AS u(bucket, external_user_id)
  WHERE p.site_id = ${siteId} AND date_trunc('hour', u.bucket, 'UTC') <> ALL (${hours}::timestamptz[])
    AND NOT EXISTS (SELECT 1 FROM analytics_user_ids k WHERE k.site_id = ${siteId} AND k.external_user_id = u.external_user_id)
  GROUP BY u.external_user_id
) n
CROSS JOIN (SELECT coalesce(max(id), -1) AS top FROM analytics_user_ids WHERE site_id = ${siteId}) base
