-- Revokes a credential of a site (idempotent: the first revocation time is kept).
-- Takes ${siteId}, ${id}; returns its metadata, or nothing when the site has no such credential.
UPDATE credentials SET revoked_at = coalesce(revoked_at, now())
WHERE site_id = ${siteId} AND id = ${id}
RETURNING id, name, kind, scopes, prefix, created_at, expires_at, revoked_at, requests_per_min
