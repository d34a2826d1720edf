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
  CROSS JOIN LATERAL (SELECT CASE e.event_type
    WHEN 'visit' THEN 'visitors'
    WHEN 'registration_completed' THEN 'registered'
    WHEN 'activation_completed' THEN 'activated'
    WHEN 'usage' THEN 'active'
    WHEN 'workflow_completed' THEN 'active'
    WHEN 'order_paid' THEN 'paid' END AS kind) k
  WHERE k.kind IS NOT NULL
),
-- Bit i of a chunk is bit (i & 7) of byte i >> 3, counted from the left as bit strings are.
bytes AS (
  SELECT bucket, kind, id >> 16 AS chunk, (id & 65535) >> 3 AS byte, bit_or(128 >> (id & 7)) AS val
  FROM present
  GROUP BY 1, 2, 3, 4
)
INSERT INTO analytics_sets (site_id, grain, kind, bucket, chunk, bits)
-- The bitmap is written as hex: zero bytes up to each set byte, then padded to 8 KiB.
SELECT ${siteId}, 'q', kind, bucket, chunk,
  ('x' || rpad(string_agg(repeat('00', byte - prev - 1) || lpad(to_hex(val), 2, '0'), '' ORDER BY byte), 16384, '0'))::bit(65536)
FROM (SELECT b.*, lag(byte, 1, -1) OVER (PARTITION BY bucket, kind, chunk ORDER BY byte) AS prev FROM bytes b) x
GROUP BY kind, bucket, chunk
