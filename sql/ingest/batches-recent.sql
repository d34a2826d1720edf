-- A site's most recent batches, newest first. Takes ${siteId}, ${limit}.
SELECT site_id, resource, batch_id, digest, status, received, applied, unchanged, problem, received_at, completed_at
FROM ingest_batches
WHERE site_id = ${siteId}
ORDER BY received_at DESC, resource, batch_id
LIMIT ${limit}
