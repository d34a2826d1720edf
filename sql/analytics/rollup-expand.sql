-- Takes ${siteId}, ${hours} (timestamptz[], UTC hours whose raw records changed). Returns the
-- other hours whose figures depend on records in those hours:
-- - every hour holding a visit of a session visited in ${hours}: a visit counts where its
--   session starts, and a new earliest visit moves the start out of another hour;
-- - every hour holding an order or payment of a user active in ${hours} who has no
--   channel or campaign before the first of them: such a user's first touch may have
--   moved, and with it the attribution of all their money.
WITH h AS (SELECT unnest(${hours}::timestamptz[]) AS hour),
ev AS (
  SELECT e.event_type, e.session_id, e.external_user_id
  FROM h CROSS JOIN LATERAL (SELECT * FROM ingest_events x WHERE x.site_id = ${siteId} AND x.occurred_at >= h.hour AND x.occurred_at < h.hour + interval '1 hour' OFFSET 0) e
),
sessions AS (SELECT DISTINCT session_id FROM ev WHERE event_type = 'visit' AND session_id IS NOT NULL),
users AS (
  SELECT u.external_user_id
  FROM (SELECT DISTINCT external_user_id FROM ev WHERE external_user_id IS NOT NULL) u
  WHERE NOT EXISTS (
    SELECT 1 FROM ingest_events t
    WHERE t.site_id = ${siteId} AND t.external_user_id = u.external_user_id
      AND (t.channel IS NOT NULL OR t.campaign_id IS NOT NULL)
      AND t.occurred_at < (SELECT min(hour) FROM h))
),
dependent AS (
  SELECT o.occurred_at FROM sessions s JOIN ingest_events o
    ON o.site_id = ${siteId} AND o.event_type = 'visit' AND o.session_id = s.session_id
  UNION ALL
  SELECT p.occurred_at FROM users u JOIN ingest_payments p
    ON p.site_id = ${siteId} AND p.external_user_id = u.external_user_id
  UNION ALL
  SELECT o.occurred_at FROM users u JOIN ingest_orders o
    ON o.site_id = ${siteId} AND o.external_user_id = u.external_user_id
)
SELECT DISTINCT date_trunc('hour', occurred_at, 'UTC') AS hour FROM dependent
EXCEPT
SELECT hour FROM h
