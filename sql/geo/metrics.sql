-- Counts behind the GEO metrics per day (in ${tz}) and model, over succeeded answers in the
-- window. Takes ${siteId}, ${from}, ${to}, ${tz}. Sums are additive, so the caller rolls days
-- and models up without another query.
SELECT to_char((answered_at AT TIME ZONE ${tz})::date, 'YYYY-MM-DD') AS day,
       model,
       count(*)::int AS answers,
       count(*) FILTER (WHERE brand_position IS NOT NULL)::int AS brand_answers,
       count(*) FILTER (WHERE brand_position IS NOT NULL OR competitor_mentioned)::int AS entity_answers,
       count(*) FILTER (WHERE cites_own_domain)::int AS own_citation_answers,
       count(*) FILTER (WHERE citation_count > 0)::int AS citation_answers,
       coalesce(sum(brand_position), 0)::int AS position_sum
FROM geo_answers
WHERE site_id = ${siteId} AND status = 'succeeded'
  AND answered_at >= ${from}::timestamptz AND answered_at < ${to}::timestamptz
GROUP BY 1, 2
ORDER BY 1, 2
