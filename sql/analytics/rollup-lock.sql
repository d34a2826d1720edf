-- Takes ${siteId}, ${wait} (boolean). Serializes the rollups of one site across every worker on
-- every host, until rollup-unlock.sql (or the connection's end): waits for the lock, or with
-- ${wait} false answers whether it was free. Taken before the fold's transaction starts, so its
-- snapshot holds everything the previous fold committed.
SELECT CASE WHEN ${wait} THEN pg_advisory_lock(hashtextextended('radar.analytics.rollup/' || ${siteId}, 0)) IS NOT NULL
  ELSE pg_try_advisory_lock(hashtextextended('radar.analytics.rollup/' || ${siteId}, 0)) END AS locked
