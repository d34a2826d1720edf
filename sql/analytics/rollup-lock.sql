-- Takes ${siteId}. Serializes the rollups of one site across every worker on every host until
-- the transaction ends, so two recomputes of the same hours never interleave their writes.
SELECT pg_advisory_xact_lock(hashtextextended('radar.analytics.rollup/' || ${siteId}, 0)) AS locked
