-- The receipt row of one batch. Takes ${siteId}, ${resource}, ${batchId}.
SELECT site_id, resource, batch_id, digest, status, received, applied, unchanged, problem, received_at, completed_at
FROM ingest_batches
WHERE site_id = ${siteId} AND resource = ${resource} AND batch_id = ${batchId}
