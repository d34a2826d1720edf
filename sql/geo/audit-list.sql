-- One page of a site's audits, newest first, with the total. Takes ${siteId}, ${from}, ${to}
-- (created_at window or null), ${limit}, ${offset}.
SELECT *, count(*) OVER ()::int AS total
FROM geo_audits
WHERE site_id = ${siteId}
  AND (${from}::timestamptz IS NULL OR created_at >= ${from}::timestamptz)
  AND (${to}::timestamptz IS NULL OR created_at < ${to}::timestamptz)
ORDER BY created_at DESC, id
LIMIT ${limit} OFFSET ${offset}
