-- Creates the audit of (${siteId}, ${key}) unless the key was used before; either way returns
-- the audit, with `created` true when this call made it. Takes ${siteId}, ${key}, ${digest}, ${url}.
WITH inserted AS (
  INSERT INTO geo_audits (site_id, idempotency_key, body_digest, url)
  VALUES (${siteId}, ${key}, ${digest}, ${url})
  ON CONFLICT (site_id, idempotency_key) DO NOTHING
  RETURNING *, true AS created
)
SELECT * FROM inserted
UNION ALL
SELECT *, false AS created FROM geo_audits WHERE site_id = ${siteId} AND idempotency_key = ${key}
LIMIT 1
