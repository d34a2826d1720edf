-- The next rows of a site's records of one family after (${afterAt}, ${afterId}) (both null for
-- the first), in the reads' order (occurred_at, then id), for exports: a walk by key, not by
-- offset, so each page costs the same however deep. Takes ${table}, ${idColumn}, ${siteId},
-- ${from}, ${to}, ${afterAt}, ${afterId}, ${limit}. `at` keeps occurred_at with its full precision.
SELECT record, received_at, occurred_at::text AS at, ${idColumn:name} AS id
FROM ${table:name}
WHERE site_id = ${siteId}
  AND (${from}::timestamptz IS NULL OR occurred_at >= ${from}::timestamptz)
  AND (${to}::timestamptz IS NULL OR occurred_at < ${to}::timestamptz)
  AND (${afterAt}::timestamptz IS NULL OR (occurred_at, ${idColumn:name}) > (${afterAt}::timestamptz, ${afterId}))
ORDER BY occurred_at, ${idColumn:name}
LIMIT ${limit}
