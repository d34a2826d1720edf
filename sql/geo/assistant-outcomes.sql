-- What users did in [${from}, ${to}) (registrations, activations, paid orders, revenue of
-- succeeded payments per currency), grouped by the source of each user's touch: `first`, the
-- user's earliest event carrying a channel or campaign (as acquisition attributes money), and
-- for paid orders and revenue also `last`, the latest such event at or before the order or
-- payment. Identified users only. Takes ${siteId}, ${from}, ${to}. The caller decides which
-- sources are AI assistants. Each touch is one probe of ingest_events_touch_idx.
WITH outcomes AS (
  SELECT CASE e.event_type WHEN 'registration_completed' THEN 'registrations' ELSE 'activations' END AS metric,
         e.external_user_id AS uid, e.occurred_at AS at, ''::text AS currency, 1::bigint AS value
  FROM ingest_events e
  WHERE e.site_id = ${siteId} AND e.event_type IN ('registration_completed', 'activation_completed')
    AND e.occurred_at >= ${from}::timestamptz AND e.occurred_at < ${to}::timestamptz
    AND e.external_user_id IS NOT NULL
  UNION ALL
  SELECT 'paid_orders', o.external_user_id, o.occurred_at, '', 1
  FROM ingest_orders o
  WHERE o.site_id = ${siteId} AND o.status = 'paid'
    AND o.occurred_at >= ${from}::timestamptz AND o.occurred_at < ${to}::timestamptz
    AND o.external_user_id IS NOT NULL
  UNION ALL
  SELECT 'revenue', p.external_user_id, p.occurred_at, p.currency, p.amount_minor
  FROM ingest_payments p
  WHERE p.site_id = ${siteId} AND p.status = 'succeeded'
    AND p.occurred_at >= ${from}::timestamptz AND p.occurred_at < ${to}::timestamptz
    AND p.external_user_id IS NOT NULL
),
touched AS (
  SELECT 'first'::text AS touch, o.metric, o.currency, o.value, t.channel, t.campaign_id
  FROM outcomes o
  CROSS JOIN LATERAL (
    SELECT x.channel, x.campaign_id FROM ingest_events x
    WHERE x.site_id = ${siteId} AND x.external_user_id = o.uid AND (x.channel IS NOT NULL OR x.campaign_id IS NOT NULL)
    ORDER BY x.occurred_at, x.event_id LIMIT 1
  ) t
  UNION ALL
  SELECT 'last', o.metric, o.currency, o.value, t.channel, t.campaign_id
  FROM outcomes o
  CROSS JOIN LATERAL (
    SELECT x.channel, x.campaign_id FROM ingest_events x
    WHERE x.site_id = ${siteId} AND x.external_user_id = o.uid AND (x.channel IS NOT NULL OR x.campaign_id IS NOT NULL)
      AND x.occurred_at <= o.at
    ORDER BY x.occurred_at DESC, x.event_id DESC LIMIT 1
  ) t
  WHERE o.metric IN ('paid_orders', 'revenue')
)
SELECT t.touch, t.metric, t.currency, t.channel, t.campaign_id, c.name AS campaign_name, sum(t.value)::bigint AS value
FROM touched t
LEFT JOIN ingest_campaigns c ON c.site_id = ${siteId} AND c.campaign_id = t.campaign_id
GROUP BY 1, 2, 3, 4, 5, 6
