-- Every prompt of a site, oldest first. Takes ${siteId}.
SELECT id, text FROM geo_prompts WHERE site_id = ${siteId} ORDER BY created_at, id
