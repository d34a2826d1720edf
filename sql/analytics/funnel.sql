-- Users per funnel step over one window. Takes ${siteId}, ${kinds} (text[], the steps in order)
-- and the window's ranges ${grains}, ${los}, ${his} with its raw spans (edge-sets.sql,
-- ${edgeSets}). Step k counts the users in the sets of
-- steps 1..k alike: the AND of their window bitmaps. Returns (step 1-based, users).
-- Only the user-id chunks with chunk % ${parts} = ${part}: chunks hold disjoint users, so the
-- figures of all parts add up, and the parts can run on several connections at once.
WITH ${edgeSets:raw},
u AS (
  SELECT array_position(${kinds}::text[], s.kind) AS step, s.chunk, bit_or(s.bits) AS bits
  FROM (
    SELECT s.kind, s.chunk, s.bits
    FROM unnest(${grains}::text[], ${los}::timestamptz[], ${his}::timestamptz[]) AS r(grain, lo, hi)
    CROSS JOIN LATERAL (
      SELECT s.kind, s.chunk, s.bits FROM analytics_sets s
      WHERE s.site_id = ${siteId} AND s.grain = r.grain AND s.bucket >= r.lo AND s.bucket < r.hi AND s.kind = ANY(${kinds}::text[])
        AND s.chunk % ${parts}::int = ${part}::int
      OFFSET 0
    ) s
    UNION ALL
    SELECT e.kind, e.chunk, e.bits FROM edge_sets e WHERE e.kind = ANY(${kinds}::text[]) AND e.chunk % ${parts}::int = ${part}::int
  ) s
  GROUP BY s.kind, s.chunk
)
SELECT k.step, coalesce(sum(bit_count(a.bits)), 0)::bigint AS users
FROM generate_series(1, cardinality(${kinds}::text[])) AS k(step)
LEFT JOIN LATERAL (
  -- A chunk missing for one of the steps has no user in all of them.
  SELECT bit_and(u.bits) AS bits FROM u WHERE u.step <= k.step GROUP BY u.chunk HAVING count(*) = k.step
) a ON true
GROUP BY k.step
ORDER BY k.step
