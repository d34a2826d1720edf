-- When a batch of this family last completed for the site (null: never), and the database's
-- clock. Takes ${siteId}, ${resource}.
SELECT max(completed_at) AS last_ingested_at, now() AS as_of
FROM ingest_batches
WHERE site_id = ${siteId} AND resource = ${resource} AND status = 'completed'
