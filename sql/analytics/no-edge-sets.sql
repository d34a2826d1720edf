-- edge-sets.sql for a read without raw spans (a window of whole buckets): the same CTE, empty,
-- so the read does not pay for planning the raw reads.
edge_sets AS (
  SELECT NULL::int AS grp, NULL::text AS kind, NULL::int AS chunk, NULL::bit(65536) AS bits
  WHERE false
)
