-- Runs and audits not finished, whose jobs a lost Redis or a crashed worker may have dropped.
-- Returns kind ('run' | 'audit') and id.
SELECT 'run' AS kind, id FROM geo_runs WHERE status IN ('queued', 'running')
UNION ALL
SELECT 'audit', id FROM geo_audits WHERE status = 'running'
