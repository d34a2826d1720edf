-- Takes ${siteId}; claims and returns the site's dirty hours (several transactions may have
-- marked one hour). Inside the rollup transaction: if the rollup fails, the hours are dirty
-- again. A change committed after this statement started keeps its own mark and is folded in
-- by the next rollup (sql/migrations/0008_dirty_marks_per_transaction.sql).
WITH drained AS (
  DELETE FROM analytics_dirty WHERE site_id = ${siteId} RETURNING hour
)
SELECT DISTINCT hour FROM drained
