-- Locks one batch for applying it, as batch-lock.sql, without reading its payload: the fresh
-- path inserts the records straight from it in PostgreSQL. Takes ${siteId}, ${resource}, ${batchId}.
SELECT status
FROM ingest_batches
WHERE site_id = ${siteId} AND resource = ${resource} AND batch_id = ${batchId}
FOR UPDATE
