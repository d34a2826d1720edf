-- The credential with this secret digest, with its own limit and its site's owner and limits. Takes ${secretHash}.
-- Expiry and revocation are judged by the caller so it can tell why a credential failed;
-- a disabled owner's credentials are not found at all.
SELECT c.id, c.site_id, c.kind, c.scopes, c.secret_hash, c.expires_at, c.revoked_at, s.account_id,
       c.requests_per_min,
       s.ingest_records_per_min, s.credential_requests_per_min
FROM credentials c JOIN sites s ON s.id = c.site_id JOIN accounts a ON a.id = s.account_id
WHERE c.secret_hash = ${secretHash} AND a.disabled_at IS NULL
