-- A site's most recent exports, newest first. Takes ${siteId}, ${limit}.
SELECT * FROM exports WHERE site_id = ${siteId} ORDER BY created_at DESC, id LIMIT ${limit}
