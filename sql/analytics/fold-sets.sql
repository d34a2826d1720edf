-- Takes ${siteId}, ${hours} (timestamptz[], UTC hours rebuilt from raw records in this fold).
-- ORs the users of pending events (analytics_pending_users) into the quarter-hour bitmaps of
-- analytics_sets, except in ${hours}. Users must already have ids (fold-user-ids.sql). Returns
-- the quarter hours written.
WITH present AS (
  SELECT DISTINCT u.bucket, u.kind, k.id
  FROM analytics_pending_users p CROSS JOIN LATERAL unnest(p.buckets, p.kinds, p.users) AS u(bucket, kind, external_user_id)
  -- LATERAL: one key probe per user (see rollup-sets.sql).
  CROSS JOIN LATERAL (SELECT k.id FROM analytics_user_ids k WHERE k.site_id = ${siteId} AND k.external_user_id = u.external_user_id OFFSET 0) k
  WHERE p.site_id = ${siteId} AND date_trunc('hour', u.bucket, 'UTC') <> ALL (${hours}::timestamptz[])
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
