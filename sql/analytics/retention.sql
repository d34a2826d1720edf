-- Weekly registration cohorts. Takes ${siteId} and ranges ${grains}, ${los}, ${his}, ${groups}:
-- group w >= 0 is week w of the window, group -1 all time before the window.
-- Cohort w: users whose first registration_completed ever falls in week w (registered in w,
-- in no earlier week, nor before the window). Returns per cohort w and week j >= w the cohort
-- users active (usage or workflow_completed) in week j; the row j = w is the cohort's size.
WITH wk AS (
  SELECT r.grp, s.kind, s.chunk, bit_or(s.bits) AS bits
  FROM unnest(${grains}::text[], ${los}::timestamptz[], ${his}::timestamptz[], ${groups}::int[]) AS r(grain, lo, hi, grp)
  CROSS JOIN LATERAL (
    SELECT s.kind, s.chunk, s.bits FROM analytics_sets s
    WHERE s.site_id = ${siteId} AND s.grain = r.grain AND s.bucket >= r.lo AND s.bucket < r.hi
      -- Activity before the window is never asked for.
      AND s.kind IN ('registered', CASE WHEN r.grp >= 0 THEN 'active' END)
    OFFSET 0
  ) s
  GROUP BY r.grp, s.kind, s.chunk
),
prior AS (
  SELECT w.grp, x.chunk, bit_or(x.bits) AS bits
  FROM (SELECT DISTINCT grp FROM wk WHERE grp >= 0) w
  JOIN wk x ON x.kind = 'registered' AND x.grp < w.grp
  GROUP BY w.grp, x.chunk
),
cohort AS (
  SELECT reg.grp, reg.chunk, CASE WHEN p.bits IS NULL THEN reg.bits ELSE reg.bits & ~p.bits END AS bits
  FROM wk reg LEFT JOIN prior p ON p.grp = reg.grp AND p.chunk = reg.chunk
  WHERE reg.kind = 'registered' AND reg.grp >= 0
)
SELECT c.grp AS cohort, c.grp AS week, sum(bit_count(c.bits))::bigint AS users FROM cohort c GROUP BY c.grp
UNION ALL
SELECT c.grp, a.grp, sum(bit_count(c.bits & a.bits))::bigint
FROM cohort c JOIN wk a ON a.kind = 'active' AND a.grp > c.grp AND a.chunk = c.chunk
GROUP BY c.grp, a.grp
