-- Takes ${siteId}, ${hours} (timestamptz[], UTC hours). Recomputes the quarter-hour user
-- bitmaps of analytics_sets in those hours (delete and insert: idempotent). Kinds, by event type:
-- visitors (visit), registered (registration_completed), activated (activation_completed),
-- active (usage, workflow_completed), paid (order_paid). Events without external_user_id are in
-- no set. Users must already have ids (rollup-user-ids.sql).
-- By ctid, as in rollup-counts.sql.
DELETE FROM analytics_sets s USING (
  SELECT x.ctid AS row FROM unnest(${hours}::timestamptz[]) AS h(hour)
  CROSS JOIN LATERAL (SELECT ctid FROM analytics_sets x WHERE x.site_id = ${siteId} AND x.grain = 'q' AND x.bucket >= h.hour AND x.bucket < h.hour + interval '1 hour' OFFSET 0) x
) d
WHERE s.ctid = d.row;

WITH present AS (
  SELECT DISTINCT date_bin('15 minutes', e.occurred_at, timestamptz '2000-01-01 00:00Z') AS bucket, k.kind, u.id
  FROM unnest(${hours}::timestamptz[]) AS h(hour)
  CROSS JOIN LATERAL (SELECT * FROM ingest_events x WHERE x.site_id = ${siteId} AND x.occurred_at >= h.hour AND x.occurred_at < h.hour + interval '1 hour' OFFSET 0) e
  -- LATERAL: one key probe per event. As a join, the planner may loop over the site's users
  -- outside and scan every hour's events once per user.
  CROSS JOIN LATERAL (SELECT u.id FROM analytics_user_ids u WHERE u.site_id = ${siteId} AND u.external_user_id = e.external_user_id OFFSET 0) u
  CROSS JOIN LATERAL (SELECT analytics_set_kind(e.event_type) AS kind) k
  WHERE k.kind IS NOT NULL
)
-- One bitmap per chunk of 65,536 ids (analytics_bits, migration 0017).
INSERT INTO analytics_sets (site_id, grain, kind, bucket, chunk, bits)
SELECT ${siteId}, 'q', kind, bucket, id >> 16, analytics_bits(array_agg(id))
FROM present
GROUP BY kind, bucket, id >> 16
