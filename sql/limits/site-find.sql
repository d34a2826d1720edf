-- The limits set on one site (NULL = the server default). Takes ${siteId}.
SELECT ingest_records_per_min, credential_requests_per_min
FROM sites
WHERE id = ${siteId}
