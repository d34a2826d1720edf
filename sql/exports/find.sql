-- One export of a site, or none. Takes ${siteId}, ${id}.
SELECT * FROM exports WHERE id = ${id} AND site_id = ${siteId}
