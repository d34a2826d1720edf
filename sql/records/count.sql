-- How many records list.sql pages through. Takes ${table}, ${siteId}, ${from}, ${to}.
SELECT count(*)::int AS total
FROM ${table:name}
WHERE site_id = ${siteId}
  AND (${from}::timestamptz IS NULL OR occurred_at >= ${from}::timestamptz)
  AND (${to}::timestamptz IS NULL OR occurred_at < ${to}::timestamptz)
