-- edge-counts.sql for a read without raw spans (a window of whole buckets): the same CTE, empty,
-- so the read does not pay for planning the raw reads (a few ms).
edge AS (
  SELECT NULL::int AS grp, NULL::timestamptz AS at, NULL::text AS metric, NULL::boolean AS per_source, NULL::text AS channel,
    NULL::text AS campaign_id, NULL::text AS dim, NULL::text AS currency, NULL::bigint AS value
  WHERE false
)
