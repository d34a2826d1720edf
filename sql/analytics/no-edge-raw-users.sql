-- edge-raw-users.sql for a read without raw spans (a window of whole buckets): the same CTE,
-- empty, so the read does not pay for planning the raw reads.
edge_raw_users AS (
  SELECT NULL::int AS grp, NULL::text AS kind, NULL::text AS external_user_id
  WHERE false
)
