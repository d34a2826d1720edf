-- Takes ${siteId}, ${resources} (text[]). computed_at: when the site's rollups were last
-- computed (null: never); pending_hours and oldest_pending: changed hours not folded in yet;
-- last_received_at: the newest completed ingest batch (one index probe per resource);
-- now: the database's clock.
SELECT
  (SELECT computed_at FROM analytics_state WHERE site_id = ${siteId}) AS computed_at,
  (SELECT count(DISTINCT hour) FROM analytics_dirty WHERE site_id = ${siteId})::int AS pending_hours,
  (SELECT min(marked_at) FROM analytics_dirty WHERE site_id = ${siteId}) AS oldest_pending,
  (SELECT max(b.last) FROM unnest(${resources}::text[]) AS r(resource)
    CROSS JOIN LATERAL (SELECT max(completed_at) AS last FROM ingest_batches
      WHERE site_id = ${siteId} AND resource = r.resource AND status = 'completed') b) AS last_received_at,
  now() AS now
