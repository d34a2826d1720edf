-- Runs created in the window by status, and the models that answered at least once.
-- Takes ${siteId}, ${from}, ${to}.
SELECT
  (SELECT coalesce(jsonb_object_agg(status, n), '{}') FROM (
     SELECT status, count(*)::int AS n FROM geo_runs
     WHERE site_id = ${siteId} AND created_at >= ${from}::timestamptz AND created_at < ${to}::timestamptz
     GROUP BY status) s) AS runs,
  (SELECT coalesce(array_agg(DISTINCT model ORDER BY model), '{}') FROM geo_answers
     WHERE site_id = ${siteId} AND status = 'succeeded'
       AND answered_at >= ${from}::timestamptz AND answered_at < ${to}::timestamptz) AS models_answered,
  (SELECT max(answered_at) FROM geo_answers WHERE site_id = ${siteId} AND status = 'succeeded') AS last_answer_at
