-- Sets both limits of a site. Takes ${siteId}, ${ingestRecordsPerMin}, ${credentialRequestsPerMin}.
UPDATE sites
SET ingest_records_per_min = ${ingestRecordsPerMin}, credential_requests_per_min = ${credentialRequestsPerMin}
WHERE id = ${siteId}
RETURNING ingest_records_per_min, credential_requests_per_min
