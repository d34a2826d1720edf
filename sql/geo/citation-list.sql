-- A site's cited URLs, most cited first: how many answers cite each, by which models, when
-- first and last. Takes ${siteId}, ${from}, ${to} (answered_at window or null), ${runId},
-- ${model}, ${domain} (filters or null; domain matches subdomains too), ${limit}, ${offset}.
SELECT c.url, c.domain, bool_or(c.own_domain) AS own_domain,
       count(*)::int AS answers,
       array_agg(DISTINCT a.model ORDER BY a.model) AS models,
       min(a.answered_at) AS first_cited_at, max(a.answered_at) AS last_cited_at,
       count(*) OVER ()::int AS total
FROM geo_citations c
JOIN geo_answers a ON a.id = c.answer_id
WHERE c.site_id = ${siteId}
  AND (${runId}::uuid IS NULL OR a.run_id = ${runId}::uuid)
  AND (${model}::text IS NULL OR a.model = ${model}::text)
  AND (${domain}::text IS NULL OR c.domain = ${domain}::text OR c.domain LIKE '%.' || ${domain}::text)
  AND (${from}::timestamptz IS NULL OR a.answered_at >= ${from}::timestamptz)
  AND (${to}::timestamptz IS NULL OR a.answered_at < ${to}::timestamptz)
GROUP BY c.url, c.domain
ORDER BY answers DESC, c.url
LIMIT ${limit} OFFSET ${offset}
