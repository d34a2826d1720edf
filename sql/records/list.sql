-- One page of a site's records of one family, latest revision only (one row per record),
-- ordered by occurred_at then id. Takes ${table}, ${idColumn}, ${siteId}, ${from}, ${to}
-- (timestamps or null: from inclusive, to exclusive), ${limit}, ${offset}.
SELECT record, received_at
FROM ${table:name}
WHERE site_id = ${siteId}
  AND (${from}::timestamptz IS NULL OR occurred_at >= ${from}::timestamptz)
  AND (${to}::timestamptz IS NULL OR occurred_at < ${to}::timestamptz)
ORDER BY occurred_at, ${idColumn:name}
LIMIT ${limit} OFFSET ${offset}
