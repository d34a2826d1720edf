-- Takes ${siteId}. Deletes the site's pending changes the fold has just moved into the rollups:
-- in its repeatable-read snapshot, exactly those it read; a batch committed since keeps its rows
-- for the next fold.
DELETE FROM analytics_pending_counts WHERE site_id = ${siteId};
DELETE FROM analytics_pending_users WHERE site_id = ${siteId};
DELETE FROM analytics_pending_keys WHERE site_id = ${siteId};
DELETE FROM analytics_pending_money WHERE site_id = ${siteId}
