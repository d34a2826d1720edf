-- Distinct users per group and kind. Takes ${siteId}, ${kinds} (text[]) and ranges ${grains},
-- ${los}, ${his}, ${groups} as in series.sql. A user counts once per group however many buckets
-- they appear in: the popcount of the union of the group's bitmaps, chunk by chunk.
WITH u AS (
  SELECT r.grp, s.kind, s.chunk, bit_or(s.bits) AS bits
  FROM unnest(${grains}::text[], ${los}::timestamptz[], ${his}::timestamptz[], ${groups}::int[]) AS r(grain, lo, hi, grp)
  CROSS JOIN LATERAL (
    SELECT s.kind, s.chunk, s.bits FROM analytics_sets s
    WHERE s.site_id = ${siteId} AND s.grain = r.grain AND s.bucket >= r.lo AND s.bucket < r.hi AND s.kind = ANY(${kinds}::text[])
    OFFSET 0
  ) s
  GROUP BY r.grp, s.kind, s.chunk
)
SELECT grp, kind, sum(bit_count(bits))::bigint AS users FROM u GROUP BY grp, kind
