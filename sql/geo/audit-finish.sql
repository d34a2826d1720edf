-- Stores an audit's outcome once; a finished audit is never rewritten. Takes ${id}, ${status},
-- ${finalUrl}, ${score}, ${checks} (JSON), ${error}.
UPDATE geo_audits SET status = ${status}, final_url = ${finalUrl}, score = ${score},
  checks = ${checks}::jsonb, error = ${error}, completed_at = now()
WHERE id = ${id} AND status = 'running'
