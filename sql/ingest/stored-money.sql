-- Amount and currency of the stored orders or payments among ${ids} of one site, for the
-- semantic checks of payments and refunds. Takes ${table}, ${idColumn}, ${siteId}, ${ids}.
-- One primary-key probe per id (see stored-revisions.sql).
SELECT wanted.id, t.amount_minor, t.currency
FROM unnest(${ids}::text[]) AS wanted(id)
CROSS JOIN LATERAL (
  SELECT amount_minor, currency FROM ${table:name}
  WHERE site_id = ${siteId} AND ${idColumn:name} = wanted.id
  LIMIT 1
) t
