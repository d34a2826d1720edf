-- One page of a site's audits, newest first, with the total. Takes ${siteId}, ${from}, ${to}
-- (created_at window or null), ${status} and ${url} (the audited URL as given; filters or
-- null), ${limit}, ${offset}.
SELECT *, count(*) OVER ()::int AS total
FROM geo_audits
WHERE site_id = ${siteId}
  AND (${from}::timestamptz IS NULL OR created_at >= ${from}::timestamptz)
  AND (${to}::timestamptz IS NULL OR created_at < ${to}::timestamptz)
  AND (${status}::text IS NULL OR status = ${status}::text)
  AND (${url}::text IS NULL OR url = ${url}::text)
ORDER BY created_at DESC, id
LIMIT ${limit} OFFSET ${offset}
