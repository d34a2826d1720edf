-- Moves a queued run to running and creates one pending answer per (prompt, model); a run
-- already started is left as it is. Takes ${runId}, ${prompts} (JSON [{id, text}]).
-- Returns the run with `started` true when this call started it.
WITH started AS (
  UPDATE geo_runs SET status = 'running', started_at = now()
  WHERE id = ${runId} AND status = 'queued'
  RETURNING id, site_id, models
), answers AS (
  INSERT INTO geo_answers (run_id, site_id, prompt_id, prompt, model)
  SELECT s.id, s.site_id, p.id, p.text, m.model
  FROM started s
  CROSS JOIN jsonb_to_recordset(${prompts}::jsonb) AS p(id uuid, text text)
  CROSS JOIN unnest(s.models) AS m(model)
  ON CONFLICT (run_id, prompt, model) DO NOTHING
)
SELECT r.id, r.site_id, r.status, r.models, EXISTS (SELECT 1 FROM started) AS started
FROM geo_runs r WHERE r.id = ${runId}
