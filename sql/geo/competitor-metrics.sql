-- Per named entity (brand and competitors), the succeeded answers in the window naming it and
-- the sum of its positions. Takes ${siteId}, ${from}, ${to}.
SELECT m->>'name' AS name, m->>'kind' AS kind, count(*)::int AS answers, sum((m->>'position')::int)::int AS position_sum
FROM geo_answers a, jsonb_array_elements(a.mentions) AS m
WHERE a.site_id = ${siteId} AND a.status = 'succeeded'
  AND a.answered_at >= ${from}::timestamptz AND a.answered_at < ${to}::timestamptz
GROUP BY 1, 2
