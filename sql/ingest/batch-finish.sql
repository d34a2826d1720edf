-- Closes a queued batch as completed or rejected, drops its payload and tells the waiting
-- front doors. NOTIFY is delivered at commit, so a waiter never sees the receipt before the
-- records. Takes ${siteId}, ${resource}, ${batchId}, ${status}, ${applied}, ${unchanged},
-- ${problem} (null unless rejected). Returns one row.
WITH finished AS (
  UPDATE ingest_batches
  SET status = ${status}, applied = ${applied}, unchanged = ${unchanged}, problem = ${problem:json},
      payload = NULL, completed_at = now()
  WHERE site_id = ${siteId} AND resource = ${resource} AND batch_id = ${batchId}
  RETURNING site_id, resource, batch_id
)
SELECT pg_notify('radar_ingest_batches', site_id || '/' || resource || '/' || batch_id) FROM finished
