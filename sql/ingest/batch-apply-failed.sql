-- Counts one apply of a queued batch that PostgreSQL refused for its data. Takes ${siteId},
-- ${resource}, ${batchId}. Returns the failures so far, or no row when the batch is missing or
-- no longer queued (a concurrent applier finished it).
UPDATE ingest_batches
SET apply_failures = apply_failures + 1
WHERE site_id = ${siteId} AND resource = ${resource} AND batch_id = ${batchId} AND status = 'queued'
RETURNING apply_failures AS failures
