-- Revision and content digest of the stored records among ${ids} of one site.
-- Takes ${table}, ${idColumn}, ${siteId}, ${ids}. A lateral probe per id, kept apart by its
-- LIMIT (the key is unique anyway) so the planner cannot flatten it into a join: the plan is
-- one primary-key lookup per id whatever the statistics say. A plain `= ANY(…)` filter or a
-- join let it scan every row of the site whenever it believed the table small.
SELECT wanted.id, t.revision, t.content_digest
FROM unnest(${ids}::text[]) AS wanted(id)
CROSS JOIN LATERAL (
  SELECT revision, content_digest FROM ${table:name}
  WHERE site_id = ${siteId} AND ${idColumn:name} = wanted.id
  LIMIT 1
) t
