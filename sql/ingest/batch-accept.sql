-- Stores a new batch as queued, or finds the batch already stored under the same identity.
-- Takes $1 site id, $2 resource, $3 batch id, $4 digest, $5 received, $6 payload (canonical
-- JSON): positional, because it runs with bound parameters, so the payload travels as a
-- value rather than a ~150 KB literal for pg-promise to escape and PostgreSQL to lex.
-- Returns its receipt row with `created` (false: the batch id was known). Returns no row
-- when another request inserted the same identity concurrently: the caller asks again.
WITH created AS (
  INSERT INTO ingest_batches (site_id, resource, batch_id, digest, received, payload)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (site_id, resource, batch_id) DO NOTHING
  RETURNING site_id, resource, batch_id, digest, status, received, applied, unchanged, problem, received_at, completed_at
)
SELECT *, true AS created FROM created
UNION ALL
SELECT site_id, resource, batch_id, digest, status, received, applied, unchanged, problem, received_at, completed_at, false
FROM ingest_batches
WHERE site_id = $1 AND resource = $2 AND batch_id = $3
  AND NOT EXISTS (SELECT 1 FROM created)
