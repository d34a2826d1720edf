-- A new export, queued. Takes ${siteId}, ${request}.
INSERT INTO exports (site_id, request) VALUES (${siteId}, ${request})
RETURNING *
