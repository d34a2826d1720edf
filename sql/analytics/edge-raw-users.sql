-- The users of the ragged ends of a read (spans no whole rollup bucket fits, src/analytics/cover.ts),
-- from the raw events, by the set kinds of sql/analytics/rollup-sets.sql. Takes ${siteId},
-- ${rawLos}, ${rawHis}, ${rawGroups}. A CTE for edge-sets.sql: edge_raw_users(grp, kind, external_user_id).
edge_raw_users AS (
  SELECT DISTINCT s.grp, k.kind, e.external_user_id
  FROM unnest(${rawLos}::timestamptz[], ${rawHis}::timestamptz[], ${rawGroups}::int[]) AS s(lo, hi, grp)
  CROSS JOIN LATERAL (SELECT x.event_type, x.external_user_id FROM ingest_events x
    WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi AND x.external_user_id IS NOT NULL OFFSET 0) e
  CROSS JOIN LATERAL (SELECT analytics_set_kind(e.event_type) AS kind) k
  WHERE k.kind IS NOT NULL
)
