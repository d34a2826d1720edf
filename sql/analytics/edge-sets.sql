-- The users a read adds to the rollups' bitmaps, as bitmaps like sql/analytics/rollup-sets.sql
-- builds per bucket: those of its ragged ends (${rawUsers}: edge-raw-users.sql, or its empty
-- stand-in) and those of events not folded into the rollups yet (analytics_pending_users,
-- migration 0017) in its bucket ranges. Takes ${siteId}, ${grains}, ${los}, ${his}, ${groups}
-- and ${rawUsers}. CTEs for a read's WITH (repo.ts), ending in edge_sets(grp, kind, chunk, bits).
${rawUsers:raw},
edge_users AS (
  SELECT grp, kind, external_user_id FROM edge_raw_users
  UNION
  -- A pending quarter hour lies in a range of whole buckets or in none (ranges and raw spans of
  -- a group do not overlap), so what the raw spans read is not counted twice.
  SELECT r.grp, u.kind, u.external_user_id
  FROM analytics_pending_users p
  CROSS JOIN LATERAL unnest(p.buckets, p.kinds, p.users) AS u(bucket, kind, external_user_id)
  JOIN unnest(${grains}::text[], ${los}::timestamptz[], ${his}::timestamptz[], ${groups}::int[]) AS r(grain, lo, hi, grp)
    ON u.bucket >= r.lo AND u.bucket < r.hi
  WHERE p.site_id = ${siteId}
),
-- A user the rollup has not given an id yet is in no bucket: ids after the last one, the same
-- in every lane of a read (one snapshot), so chunked parts still hold disjoint users. Ranked in
-- byte order: any fixed order serves, and the database's collation sorted thousands of pending
-- users several times slower.
edge_ids AS (
  SELECT eu.grp, eu.kind, coalesce(u.id, top.id + dense_rank() OVER (PARTITION BY u.id IS NULL ORDER BY eu.external_user_id COLLATE "C")::int) AS id
  FROM edge_users eu
  -- LATERAL: one key probe per user, as in rollup-sets.sql; a join may hash all the site's ids.
  LEFT JOIN LATERAL (SELECT u.id FROM analytics_user_ids u WHERE u.site_id = ${siteId} AND u.external_user_id = eu.external_user_id OFFSET 0) u ON true
  CROSS JOIN (SELECT coalesce(max(id), -1) AS id FROM analytics_user_ids WHERE site_id = ${siteId}) top
),
edge_sets AS (
  SELECT grp, kind, id >> 16 AS chunk, analytics_bits(array_agg(id)) AS bits
  FROM edge_ids
  GROUP BY grp, kind, id >> 16
)
