-- A run's site and status, or no row. Takes ${runId}.
SELECT site_id, status FROM geo_runs WHERE id = ${runId}
