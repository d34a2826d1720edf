-- A site's limits (README "Limits"). NULL follows the server-wide default from the environment;
-- 0 turns the limit off for that site. A relay key's limits live on the key (0015).
ALTER TABLE sites
  ADD COLUMN ingest_records_per_min integer CHECK (ingest_records_per_min >= 0),
  ADD COLUMN credential_requests_per_min integer CHECK (credential_requests_per_min >= 0);
