-- Creates a credential. Takes ${siteId}, ${createdBy}, ${name}, ${kind}, ${scopes}, ${prefix},
-- ${secretHash}, ${expiresInDays}; returns its metadata.
INSERT INTO credentials (site_id, created_by, name, kind, scopes, prefix, secret_hash, expires_at)
VALUES (${siteId}, ${createdBy}, ${name}, ${kind}, ${scopes}::text[], ${prefix}, ${secretHash},
        now() + make_interval(days => ${expiresInDays}))
RETURNING id, name, kind, scopes, prefix, created_at, expires_at, revoked_at
