-- Sites with changes waiting for a rollup: what the periodic sweep enqueues.
SELECT site_id FROM analytics_dirty
UNION SELECT site_id FROM analytics_pending_counts
UNION SELECT site_id FROM analytics_pending_users
UNION SELECT site_id FROM analytics_pending_keys
UNION SELECT site_id FROM analytics_pending_money
