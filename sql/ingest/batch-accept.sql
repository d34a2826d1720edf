-- Stores a new batch as queued, or finds the batch already stored under the same identity.
-- Takes ${siteId}, ${resource}, ${batchId}, ${digest}, ${received}, ${payload} (canonical JSON).
-- Returns its receipt row with `created` (false: the batch id was known). Returns no row
-- when another request inserted the same identity concurrently: the caller asks again.
WITH created AS (
  INSERT INTO ingest_batches (site_id, resource, batch_id, digest, received, payload)
  VALUES (${siteId}, ${resource}, ${batchId}, ${digest}, ${received}, ${payload})
  ON CONFLICT (site_id, resource, batch_id) DO NOTHING
  RETURNING site_id, resource, batch_id, digest, status, received, applied, unchanged, problem, received_at, completed_at
)
SELECT *, true AS created FROM created
UNION ALL
SELECT site_id, resource, batch_id, digest, status, received, applied, unchanged, problem, received_at, completed_at, false
FROM ingest_batches
WHERE site_id = ${siteId} AND resource = ${resource} AND batch_id = ${batchId}
  AND NOT EXISTS (SELECT 1 FROM created)
