-- Takes ${siteId}, ${resources} (text[]). pending_hours and oldest_pending: hours of revised
-- records not rebuilt yet (inserted records are read from the pending deltas); last_received_at: the newest completed ingest batch (one index probe per resource);
-- now: the database's clock.
SELECT
  (SELECT count(DISTINCT hour) FROM analytics_dirty WHERE site_id = ${siteId})::int AS pending_hours,
  (SELECT min(marked_at) FROM analytics_dirty WHERE site_id = ${siteId}) AS oldest_pending,
  (SELECT max(b.last) FROM unnest(${resources}::text[]) AS r(resource)
    CROSS JOIN LATERAL (SELECT max(completed_at) AS last FROM ingest_batches
      WHERE site_id = ${siteId} AND resource = r.resource AND status = 'completed') b) AS last_received_at,
  now() AS now
