-- Submits a site for review. Takes ${accountId}, ${name}, ${websiteUrl}, ${description},
-- ${category}, ${publicMetrics}; returns the row.
INSERT INTO sites (account_id, name, website_url, description, category, public_metrics)
VALUES (${accountId}, ${name}, ${websiteUrl}, ${description}, ${category}, ${publicMetrics})
RETURNING *
