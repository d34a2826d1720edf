-- Creates a credential. Takes ${siteId}, ${createdBy}, ${name}, ${kind}, ${scopes}, ${prefix},
-- ${secretHash}, ${expiresInDays}, ${requestsPerMinute}; returns its metadata.
INSERT INTO credentials (site_id, created_by, name, kind, scopes, prefix, secret_hash, expires_at, requests_per_min)
VALUES (${siteId}, ${createdBy}, ${name}, ${kind}, ${scopes}::text[], ${prefix}, ${secretHash},
        now() + make_interval(days => ${expiresInDays}), ${requestsPerMinute})
RETURNING id, name, kind, scopes, prefix, created_at, expires_at, revoked_at, requests_per_min
