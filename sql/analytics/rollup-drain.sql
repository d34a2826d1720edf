-- Takes ${siteId}; claims and returns the site's dirty hours. Inside the rollup transaction: if
-- the rollup fails, the hours are dirty again. A change committed after this statement marks
-- its hour again and is folded in by the next rollup.
DELETE FROM analytics_dirty WHERE site_id = ${siteId} RETURNING hour
