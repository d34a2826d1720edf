-- Applies a partial update. Takes ${id} and each field (null = keep). When any public field
-- really changes, the site returns to pending_review; an update that changes nothing keeps
-- its review status and updated_at. Returns the row.
UPDATE sites s SET
  name           = n.name,
  website_url    = n.website_url,
  description    = n.description,
  category       = n.category,
  public_metrics = n.public_metrics,
  review_status  = CASE WHEN n.changed THEN 'pending_review'::site_review_status ELSE s.review_status END,
  updated_at     = CASE WHEN n.changed THEN now() ELSE s.updated_at END
FROM (
  SELECT o.id, v.*,
         (v.name, v.website_url, v.description, v.category, v.public_metrics)
           IS DISTINCT FROM (o.name, o.website_url, o.description, o.category, o.public_metrics) AS changed
  FROM sites o,
       LATERAL (SELECT coalesce(${name}, o.name) AS name,
                       coalesce(${websiteUrl}, o.website_url) AS website_url,
                       coalesce(${description}, o.description) AS description,
                       coalesce(${category}::site_category, o.category) AS category,
                       coalesce(${publicMetrics}, o.public_metrics) AS public_metrics) v
  WHERE o.id = ${id}
) n
WHERE s.id = n.id
RETURNING s.*
