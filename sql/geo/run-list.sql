-- One page of a site's runs, newest first, with answer counts and the total. Takes ${siteId},
-- ${from}, ${to} (created_at window, either may be null), ${runId} (null for all), ${limit}, ${offset}.
SELECT r.id, r.trigger, r.status, r.scheduled_for, r.models, r.error, r.created_at, r.started_at, r.finished_at,
       coalesce(a.total, 0) AS answers_total, coalesce(a.succeeded, 0) AS answers_succeeded,
       coalesce(a.failed, 0) AS answers_failed, coalesce(a.prompts, 0) AS prompts,
       count(*) OVER ()::int AS total
FROM geo_runs r
LEFT JOIN LATERAL (
  SELECT count(*)::int AS total,
         count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
         count(*) FILTER (WHERE status = 'failed')::int AS failed,
         count(DISTINCT prompt)::int AS prompts
  FROM geo_answers WHERE run_id = r.id
) a ON true
WHERE r.site_id = ${siteId}
  AND (${runId}::uuid IS NULL OR r.id = ${runId}::uuid)
  AND (${from}::timestamptz IS NULL OR r.created_at >= ${from}::timestamptz)
  AND (${to}::timestamptz IS NULL OR r.created_at < ${to}::timestamptz)
ORDER BY r.created_at DESC, r.id
LIMIT ${limit} OFFSET ${offset}
