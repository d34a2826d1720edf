-- Takes ${siteId}, ${hours} (timestamptz[], UTC hours rebuilt from raw records in this fold).
-- ORs the users of pending events (analytics_pending_users) into the quarter-hour bitmaps of
-- analytics_sets, except in ${hours}, after giving new users the next dense ids in order of
-- first activity. Returns the quarter hours written. Safe because the caller holds the site's
-- rollup lock.
WITH pending AS (
  SELECT p.bucket, p.kind, u.external_user_id
  FROM analytics_pending_users p CROSS JOIN LATERAL unnest(p.users) AS u(external_user_id)
  WHERE p.site_id = ${siteId} AND date_trunc('hour', p.bucket, 'UTC') <> ALL (${hours}::timestamptz[])
),
fresh AS (
  INSERT INTO analytics_user_ids (site_id, external_user_id, id)
  SELECT ${siteId}, n.external_user_id, base.top + row_number() OVER (ORDER BY n.first_at, n.external_user_id)
  FROM (
    SELECT p.external_user_id, min(p.bucket) AS first_at FROM pending p
    WHERE NOT EXISTS (SELECT 1 FROM analytics_user_ids k WHERE k.site_id = ${siteId} AND k.external_user_id = p.external_user_id)
    GROUP BY p.external_user_id
  ) n
  CROSS JOIN (SELECT coalesce(max(id), -1) AS top FROM analytics_user_ids WHERE site_id = ${siteId}) base
  RETURNING external_user_id, id
),
present AS (
  SELECT DISTINCT p.bucket, p.kind, coalesce(k.id, f.id) AS id
  FROM pending p
  -- LATERAL: one key probe per user (see rollup-sets.sql).
  LEFT JOIN LATERAL (SELECT k.id FROM analytics_user_ids k WHERE k.site_id = ${siteId} AND k.external_user_id = p.external_user_id OFFSET 0) k ON true
  LEFT JOIN fresh f ON f.external_user_id = p.external_user_id
),
written AS (
  INSERT INTO analytics_sets AS s (site_id, grain, kind, bucket, chunk, bits)
  SELECT ${siteId}, 'q', kind, bucket, id >> 16, analytics_bits(array_agg(id))
  FROM present
  GROUP BY kind, bucket, id >> 16
  ON CONFLICT (site_id, grain, bucket, kind, chunk) DO UPDATE SET bits = s.bits | EXCLUDED.bits
  RETURNING s.bucket
)
SELECT DISTINCT bucket FROM written
