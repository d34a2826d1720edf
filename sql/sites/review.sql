-- The platform admin's decision on a site. Takes ${id}, ${decision}; returns the row.
UPDATE sites SET review_status = ${decision}::site_review_status, reviewed_at = now(), updated_at = now()
WHERE id = ${id}
RETURNING *
