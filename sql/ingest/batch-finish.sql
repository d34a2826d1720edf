-- Closes a queued batch as completed or rejected, drops its payload and tells the waiting
-- front doors. NOTIFY is delivered at commit, so a waiter never sees the receipt before the
-- records. Its payload is the batch's key followed by status, applied, unchanged and
-- completed_at in epoch milliseconds: with the row it stored, a front door has the receipt of
-- a completed batch without reading it again (src/ingest/completions.ts). Takes ${siteId}, ${resource}, ${batchId}, ${status}, ${applied}, ${unchanged},
-- ${problem} (null unless rejected). Returns one row.
WITH finished AS (
  UPDATE ingest_batches
  SET status = ${status}, applied = ${applied}, unchanged = ${unchanged}, problem = ${problem:json},
      payload = NULL, completed_at = now()
  WHERE site_id = ${siteId} AND resource = ${resource} AND batch_id = ${batchId}
  RETURNING site_id, resource, batch_id, status, applied, unchanged, completed_at
)
SELECT pg_notify('radar_ingest_batches', concat_ws(' ', site_id || '/' || resource || '/' || batch_id, status, applied, unchanged, floor(extract(epoch FROM completed_at) * 1000))) FROM finished
