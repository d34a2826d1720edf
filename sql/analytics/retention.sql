-- Weekly registration cohorts. Takes ${siteId} and ranges ${grains}, ${los}, ${his}, ${groups}
-- with raw spans (edge-sets.sql, ${edgeSets}): group w >= 0 is week w of the window, group -1 all time before the window.
-- Cohort w: users whose first registration_completed ever falls in week w (registered in w,
-- in no earlier week, nor before the window). Returns per cohort w and week j >= w the cohort
-- users active (usage or workflow_completed) in week j; the row j = w is the cohort's size.
-- Only the user-id chunks with chunk % ${parts} = ${part}: chunks hold disjoint users, so the
-- figures of all parts add up, and the parts can run on several connections at once.
WITH ${edgeSets:raw},
wk AS (
  SELECT s.grp, s.kind, s.chunk, bit_or(s.bits) AS bits
  FROM (
    SELECT r.grp, s.kind, s.chunk, s.bits
    FROM unnest(${grains}::text[], ${los}::timestamptz[], ${his}::timestamptz[], ${groups}::int[]) AS r(grain, lo, hi, grp)
    CROSS JOIN LATERAL (
      SELECT s.kind, s.chunk, s.bits FROM analytics_sets s
      WHERE s.site_id = ${siteId} AND s.grain = r.grain AND s.bucket >= r.lo AND s.bucket < r.hi
        -- Activity before the window is never asked for.
        AND s.kind IN ('registered', CASE WHEN r.grp >= 0 THEN 'active' END)
        AND s.chunk % ${parts}::int = ${part}::int
      OFFSET 0
    ) s
    UNION ALL
    SELECT e.grp, e.kind, e.chunk, e.bits FROM edge_sets e
    WHERE e.kind IN ('registered', CASE WHEN e.grp >= 0 THEN 'active' END) AND e.chunk % ${parts}::int = ${part}::int
  ) s
  GROUP BY s.grp, s.kind, s.chunk
),
-- Registered in any earlier group (weeks before, or before the window), per chunk: one running
-- OR per chunk instead of OR-ing every earlier week again for each week.
cohort AS (
  SELECT grp, chunk, CASE WHEN earlier IS NULL THEN bits ELSE bits & ~earlier END AS bits
  FROM (
    SELECT grp, chunk, bits, bit_or(bits) OVER (PARTITION BY chunk ORDER BY grp ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier
    FROM wk WHERE kind = 'registered'
  ) r
  WHERE grp >= 0
)
SELECT c.grp AS cohort, c.grp AS week, sum(bit_count(c.bits))::bigint AS users FROM cohort c GROUP BY c.grp
UNION ALL
-- Counted per pair of chunks before grouping, so only small numbers are sorted or hashed.
SELECT cohort, week, sum(n)::bigint
FROM (
  SELECT c.grp AS cohort, a.grp AS week, bit_count(c.bits & a.bits) AS n
  FROM cohort c JOIN wk a ON a.kind = 'active' AND a.grp > c.grp AND a.chunk = c.chunk
  OFFSET 0
) x
GROUP BY cohort, week
