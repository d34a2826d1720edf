-- Takes ${siteId}. Releases the lock of rollup-lock.sql.
SELECT pg_advisory_unlock(hashtextextended('radar.analytics.rollup/' || ${siteId}, 0)) AS unlocked
