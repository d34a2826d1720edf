-- Ends a run with the status its answers give: succeeded when all succeeded, failed when none
-- did (or there were none), partial otherwise. Takes ${runId}, ${error} (null unless the run
-- failed as a whole). Returns the final status and answer counts.
WITH tally AS (
  SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
         count(*) FILTER (WHERE status = 'failed')::int AS failed,
         count(*)::int AS total
  FROM geo_answers WHERE run_id = ${runId}
)
UPDATE geo_runs r SET
  status = CASE WHEN t.total > 0 AND t.succeeded = t.total THEN 'succeeded'
                WHEN t.succeeded = 0 THEN 'failed'
                ELSE 'partial' END,
  error = ${error},
  finished_at = now()
FROM tally t
WHERE r.id = ${runId}
RETURNING r.status, t.succeeded, t.failed, t.total
