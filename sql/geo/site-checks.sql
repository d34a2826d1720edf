-- The latest finished audit of each audited URL of a site (or of ${url} only), newest first.
-- Takes ${siteId}, ${url} (null for all).
SELECT DISTINCT ON (url) id, url, final_url, status, score, checks, error, completed_at
FROM geo_audits
WHERE site_id = ${siteId} AND status <> 'running'
  AND (${url}::text IS NULL OR url = ${url}::text)
ORDER BY url, completed_at DESC, id
