-- Locks one batch for applying it; concurrent appliers of the same batch wait here and then
-- find it no longer queued. Takes ${siteId}, ${resource}, ${batchId}.
SELECT status, payload, received_at
FROM ingest_batches
WHERE site_id = ${siteId} AND resource = ${resource} AND batch_id = ${batchId}
FOR UPDATE
