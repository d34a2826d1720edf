-- Stores an audit's outcome once; a finished audit is never rewritten. Tells the front door
-- waiting for it on the geo audits channel (src/geo/audit-waiter.ts), at commit. Takes ${id},
-- ${status}, ${finalUrl}, ${score}, ${checks} (JSON), ${error}.
WITH finished AS (
  UPDATE geo_audits SET status = ${status}, final_url = ${finalUrl}, score = ${score},
    checks = ${checks}::jsonb, error = ${error}, completed_at = now()
  WHERE id = ${id} AND status = 'running'
  RETURNING id
)
SELECT pg_notify('radar_geo_audits', id::text) FROM finished
