-- The answers of a run still to be asked. Takes ${runId}.
SELECT id, prompt, model FROM geo_answers WHERE run_id = ${runId} AND status = 'pending' ORDER BY prompt, model
