-- Takes ${siteId}. Serializes the rollups of one site across every worker on every host, until
-- rollup-unlock.sql (or the connection's end). Taken before the fold's transaction starts, so
-- its snapshot holds everything the previous fold committed.
SELECT pg_advisory_lock(hashtextextended('radar.analytics.rollup/' || ${siteId}, 0)) AS locked
