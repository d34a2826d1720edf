-- Distinct users per group and kind. Takes ${siteId}, ${kinds} (text[]) and ranges ${grains},
-- ${los}, ${his}, ${groups} with raw spans (edge-sets.sql, ${edgeSets}) as in series.sql. A user
-- counts once per group however many buckets they appear in: the popcount of the union of the
-- group's bitmaps, chunk by chunk.
WITH ${edgeSets:raw},
u AS (
  SELECT x.grp, x.kind, x.chunk, bit_or(x.bits) AS bits
  FROM (
    SELECT r.grp, s.kind, s.chunk, s.bits
    FROM unnest(${grains}::text[], ${los}::timestamptz[], ${his}::timestamptz[], ${groups}::int[]) AS r(grain, lo, hi, grp)
    CROSS JOIN LATERAL (
      SELECT s.kind, s.chunk, s.bits FROM analytics_sets s
      WHERE s.site_id = ${siteId} AND s.grain = r.grain AND s.bucket >= r.lo AND s.bucket < r.hi AND s.kind = ANY(${kinds}::text[])
      OFFSET 0
    ) s
    UNION ALL
    SELECT e.grp, e.kind, e.chunk, e.bits FROM edge_sets e WHERE e.kind = ANY(${kinds}::text[])
  ) x
  GROUP BY x.grp, x.kind, x.chunk
)
SELECT grp, kind, sum(bit_count(bits))::bigint AS users FROM u GROUP BY grp, kind
