-- Sites with hours waiting for a rollup: what the periodic sweep enqueues.
SELECT DISTINCT site_id FROM analytics_dirty
