-- Takes ${siteId}; records that the site's rollups are computed as of now (freshness.as_of).
INSERT INTO analytics_state (site_id, computed_at) VALUES (${siteId}, now())
ON CONFLICT (site_id) DO UPDATE SET computed_at = EXCLUDED.computed_at
