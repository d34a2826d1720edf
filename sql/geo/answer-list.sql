-- One page of a site's answers, newest first, each with its citations, and the total.
-- Takes ${siteId}, ${from}, ${to} (created_at window or null), ${runId}, ${model}, ${status}
-- (filters or null), ${limit}, ${offset}.
SELECT a.id, a.run_id, a.prompt_id, a.prompt, a.model, a.status, a.text, a.error, a.mentions,
       a.brand_position, a.created_at, a.answered_at,
       coalesce((SELECT jsonb_agg(jsonb_build_object('url', c.url, 'domain', c.domain, 'source', c.source, 'own_domain', c.own_domain) ORDER BY c.url)
                 FROM geo_citations c WHERE c.answer_id = a.id), '[]') AS citations,
       count(*) OVER ()::int AS total
FROM geo_answers a
WHERE a.site_id = ${siteId}
  AND (${runId}::uuid IS NULL OR a.run_id = ${runId}::uuid)
  AND (${model}::text IS NULL OR a.model = ${model}::text)
  AND (${status}::text IS NULL OR a.status = ${status}::text)
  AND (${from}::timestamptz IS NULL OR a.created_at >= ${from}::timestamptz)
  AND (${to}::timestamptz IS NULL OR a.created_at < ${to}::timestamptz)
ORDER BY a.created_at DESC, a.prompt, a.model
LIMIT ${limit} OFFSET ${offset}
