-- A new run, queued. Takes ${siteId}, ${trigger}, ${scheduledFor} (null for manual runs),
-- ${models}. For a scheduled slot that already has its run, returns that run instead.
WITH inserted AS (
  INSERT INTO geo_runs (site_id, trigger, scheduled_for, models)
  VALUES (${siteId}, ${trigger}, ${scheduledFor}::timestamptz, ${models}::text[])
  ON CONFLICT (site_id, scheduled_for) DO NOTHING
  RETURNING id
)
SELECT id FROM inserted
UNION ALL
SELECT id FROM geo_runs WHERE site_id = ${siteId} AND scheduled_for = ${scheduledFor}::timestamptz
LIMIT 1
