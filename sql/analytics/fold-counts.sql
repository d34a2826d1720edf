-- Takes ${siteId}, ${hours} (timestamptz[], UTC hours rebuilt from raw records in this fold) and
-- ${pendingDeltas} (pending-deltas.sql formatted with them). Adds the pending deltas to the
-- quarter-hour rows of analytics_counts, except in ${hours} (their rebuild already counts
-- everything stored), and records the session starts and first touches they were computed
-- with. Returns the quarter hours written. Run in the fold's snapshot, whose pending rows it
-- then deletes (rollup.ts).
WITH ${pendingDeltas:raw},
starts_kept AS (
  INSERT INTO analytics_session_starts (site_id, session_id, at, event_id, channel, campaign_id)
  SELECT ${siteId}, session_id, c_at, c_event, c_channel, c_campaign FROM session_starts WHERE c_at IS NOT NULL
  ON CONFLICT (site_id, session_id) DO UPDATE
  SET at = EXCLUDED.at, event_id = EXCLUDED.event_id, channel = EXCLUDED.channel, campaign_id = EXCLUDED.campaign_id
),
starts_gone AS (
  DELETE FROM analytics_session_starts s USING session_starts g
  WHERE s.site_id = ${siteId} AND s.session_id = g.session_id AND g.c_at IS NULL
),
touch_kept AS (
  INSERT INTO analytics_user_touch (site_id, external_user_id, at, event_id, channel, campaign_id)
  SELECT ${siteId}, external_user_id, c_at, c_event, c_channel, c_campaign FROM touch_moves WHERE c_at IS NOT NULL
  ON CONFLICT (site_id, external_user_id) DO UPDATE
  SET at = EXCLUDED.at, event_id = EXCLUDED.event_id, channel = EXCLUDED.channel, campaign_id = EXCLUDED.campaign_id
),
touch_gone AS (
  DELETE FROM analytics_user_touch t USING touch_moves g
  WHERE t.site_id = ${siteId} AND t.external_user_id = g.external_user_id AND g.c_at IS NULL
),
written AS (
  INSERT INTO analytics_counts AS c (site_id, grain, per_source, bucket, metric, channel, campaign_id, dim, currency, value, first_at, last_at)
  SELECT ${siteId}, 'q', per_source, bucket, metric, channel, campaign_id, dim, currency, value, first_at, last_at
  FROM pending_deltas
  WHERE date_trunc('hour', bucket, 'UTC') <> ALL (${hours}::timestamptz[])
  ON CONFLICT (site_id, grain, per_source, bucket, metric, channel, campaign_id, dim, currency) DO UPDATE
  SET value = c.value + EXCLUDED.value, first_at = least(c.first_at, EXCLUDED.first_at), last_at = greatest(c.last_at, EXCLUDED.last_at)
  RETURNING c.bucket
)
SELECT DISTINCT bucket FROM written
