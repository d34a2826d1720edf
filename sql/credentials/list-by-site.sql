-- Credential metadata of a site, newest first. Takes ${siteId}. Never returns the digest.
SELECT id, name, kind, scopes, prefix, created_at, expires_at, revoked_at, requests_per_min
FROM credentials
WHERE site_id = ${siteId}
ORDER BY created_at DESC, id
