-- The records of a queued batch, read without a lock: the fresh path checks payments and
-- refunds against stored orders and payments before its one statement (src/ingest/apply.ts).
-- Takes ${siteId}, ${resource}, ${batchId}. No row once the batch is no longer queued.
SELECT payload
FROM ingest_batches
WHERE site_id = ${siteId} AND resource = ${resource} AND batch_id = ${batchId} AND status = 'queued'
