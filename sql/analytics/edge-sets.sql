-- The users of the ragged ends of a read (see edge-counts.sql), from the raw events, as bitmaps
-- like sql/analytics/rollup-sets.sql builds per bucket. Takes ${siteId}, ${rawLos}, ${rawHis},
-- ${rawGroups}. CTEs for a read's WITH (repo.ts), ending in edge_sets(grp, kind, chunk, bits).
edge_users AS (
  SELECT DISTINCT s.grp, k.kind, e.external_user_id
  FROM unnest(${rawLos}::timestamptz[], ${rawHis}::timestamptz[], ${rawGroups}::int[]) AS s(lo, hi, grp)
  CROSS JOIN LATERAL (SELECT x.event_type, x.external_user_id FROM ingest_events x
    WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi AND x.external_user_id IS NOT NULL OFFSET 0) e
  CROSS JOIN LATERAL (SELECT CASE e.event_type
    WHEN 'visit' THEN 'visitors'
    WHEN 'registration_completed' THEN 'registered'
    WHEN 'activation_completed' THEN 'activated'
    WHEN 'usage' THEN 'active'
    WHEN 'workflow_completed' THEN 'active'
    WHEN 'order_paid' THEN 'paid' END AS kind) k
  WHERE k.kind IS NOT NULL
),
-- A user the rollup has not given an id yet is in no bucket: ids after the last one, the same
-- in every lane of a read (one snapshot), so chunked parts still hold disjoint users.
edge_ids AS (
  SELECT eu.grp, eu.kind, coalesce(u.id, top.id + dense_rank() OVER (PARTITION BY u.id IS NULL ORDER BY eu.external_user_id)::int) AS id
  FROM edge_users eu
  -- LATERAL: one key probe per user, as in rollup-sets.sql; a join may hash all the site's ids.
  LEFT JOIN LATERAL (SELECT u.id FROM analytics_user_ids u WHERE u.site_id = ${siteId} AND u.external_user_id = eu.external_user_id OFFSET 0) u ON true
  CROSS JOIN (SELECT coalesce(max(id), -1) AS id FROM analytics_user_ids WHERE site_id = ${siteId}) top
),
edge_bytes AS (
  SELECT grp, kind, id >> 16 AS chunk, (id & 65535) >> 3 AS byte, bit_or(128 >> (id & 7)) AS val
  FROM edge_ids
  GROUP BY 1, 2, 3, 4
),
edge_sets AS (
  SELECT grp, kind, chunk, ('x' || rpad(string_agg(repeat('00', byte - prev - 1) || lpad(to_hex(val), 2, '0'), '' ORDER BY byte), 16384, '0'))::bit(65536) AS bits
  FROM (SELECT b.*, lag(byte, 1, -1) OVER (PARTITION BY grp, kind, chunk ORDER BY byte) AS prev FROM edge_bytes b) x
  GROUP BY grp, kind, chunk
)
