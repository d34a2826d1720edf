-- One page of a site's prompts, oldest first, with the total. Takes ${siteId}, ${limit}, ${offset}.
SELECT id, text, created_at, count(*) OVER ()::int AS total
FROM geo_prompts
WHERE site_id = ${siteId}
ORDER BY created_at, id
LIMIT ${limit} OFFSET ${offset}
