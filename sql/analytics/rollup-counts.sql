-- Takes ${siteId}, ${hours} (timestamptz[], UTC hours). Recomputes the quarter-hour rows of
-- analytics_counts in those hours from the raw records: delete and insert, so running it twice
-- changes nothing. Metrics (value 1 per record unless money):
--   records:<family>       every record, by occurred_at (coverage), with first/last occurred_at
--   visit_events           visit events            active_events  usage + workflow_completed
--   visits                 visits that start their session (earliest visit of the session_id;
--                          a visit without session_id is a session of its own)
--   registrations, activations   registration_completed, activation_completed events
--   paid_orders            orders with status paid
--   receipts, refunds      succeeded payments, succeeded refunds: amount per currency
--   costs, expenses        amount per currency, dim = category, cost_scope
--   observations           dim = status
--   new_subscriptions      first starts (analytics_subscription_starts), by started_at
--   churned_subscriptions  subscriptions now cancelled or expired, by their latest occurred_at
-- per_source rows split visits, registrations, activations by the event's own channel and
-- campaign, paid_orders and revenue (receipts) by the user's first touch, spend (expenses) by
-- campaign.
-- Each hour's records are read by a LATERAL subquery (OFFSET 0 keeps it one): one index range
-- scan per hour, whatever the statistics of freshly grown tables make the planner think.
-- The rows to delete are found by one range scan per hour and per_source value (see
-- rollup-levels.sql) and deleted by ctid: a plain join of the hours with the table's rows can be
-- planned as a nested loop testing every row of the site against every hour, minutes for a
-- site's whole history.
DELETE FROM analytics_counts c USING (
  SELECT x.ctid AS row FROM unnest(${hours}::timestamptz[]) AS h(hour)
  CROSS JOIN (VALUES (false), (true)) AS p(per_source)
  CROSS JOIN LATERAL (SELECT ctid FROM analytics_counts x WHERE x.site_id = ${siteId} AND x.grain = 'q' AND x.per_source = p.per_source AND x.bucket >= h.hour AND x.bucket < h.hour + interval '1 hour' OFFSET 0) x
) d
WHERE c.ctid = d.row;

WITH h AS (SELECT unnest(${hours}::timestamptz[]) AS hour),
ev AS (
  SELECT e.*, st.session_start
  FROM h CROSS JOIN LATERAL (SELECT * FROM ingest_events x WHERE x.site_id = ${siteId} AND x.occurred_at >= h.hour AND x.occurred_at < h.hour + interval '1 hour' OFFSET 0) e
  -- OFFSET 0: computed once per event, not once per use below.
  CROSS JOIN LATERAL (SELECT CASE WHEN e.event_type = 'visit' THEN e.session_id IS NULL OR NOT EXISTS (
      SELECT 1 FROM ingest_events o
      WHERE o.site_id = e.site_id AND o.event_type = 'visit' AND o.session_id = e.session_id
        AND (o.occurred_at, o.event_id) < (e.occurred_at, e.event_id)) END AS session_start OFFSET 0) st
),
rows AS (
  SELECT ev.occurred_at AS at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM ev CROSS JOIN LATERAL (VALUES
    ('records:events'::text, false, ''::text, ''::text, ''::text, ''::text, 1::bigint, true),
    ('visit_events', false, '', '', '', '', 1, ev.event_type = 'visit'),
    ('active_events', false, '', '', '', '', 1, ev.event_type IN ('usage', 'workflow_completed')),
    ('visits', false, '', '', '', '', 1, ev.session_start),
    ('visits', true, coalesce(ev.channel, ''), coalesce(ev.campaign_id, ''), '', '', 1, ev.session_start),
    ('registrations', false, '', '', '', '', 1, ev.event_type = 'registration_completed'),
    ('registrations', true, coalesce(ev.channel, ''), coalesce(ev.campaign_id, ''), '', '', 1, ev.event_type = 'registration_completed'),
    ('activations', false, '', '', '', '', 1, ev.event_type = 'activation_completed'),
    ('activations', true, coalesce(ev.channel, ''), coalesce(ev.campaign_id, ''), '', '', 1, ev.event_type = 'activation_completed')
  ) AS m(metric, per_source, channel, campaign_id, dim, currency, value, keep)
  WHERE m.keep

  UNION ALL
  SELECT o.occurred_at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM h CROSS JOIN LATERAL (SELECT * FROM ingest_orders x WHERE x.site_id = ${siteId} AND x.occurred_at >= h.hour AND x.occurred_at < h.hour + interval '1 hour' OFFSET 0) o
  LEFT JOIN LATERAL (SELECT * FROM analytics_first_touch(${siteId}::uuid, o.external_user_id) WHERE o.status = 'paid') ft ON true
  CROSS JOIN LATERAL (VALUES
    ('records:orders'::text, false, ''::text, ''::text, ''::text, ''::text, 1::bigint, true),
    ('paid_orders', false, '', '', '', '', 1, o.status = 'paid'),
    ('paid_orders', true, coalesce(ft.channel, ''), coalesce(ft.campaign_id, ''), '', '', 1, o.status = 'paid')
  ) AS m(metric, per_source, channel, campaign_id, dim, currency, value, keep)
  WHERE m.keep

  UNION ALL
  SELECT p.occurred_at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM h CROSS JOIN LATERAL (SELECT * FROM ingest_payments x WHERE x.site_id = ${siteId} AND x.occurred_at >= h.hour AND x.occurred_at < h.hour + interval '1 hour' OFFSET 0) p
  LEFT JOIN LATERAL (SELECT * FROM analytics_first_touch(${siteId}::uuid, p.external_user_id) WHERE p.status = 'succeeded') ft ON true
  CROSS JOIN LATERAL (VALUES
    ('records:payments'::text, false, ''::text, ''::text, ''::text, ''::text, 1::bigint, true),
    ('receipts', false, '', '', '', p.currency, p.amount_minor, p.status = 'succeeded'),
    ('revenue', true, coalesce(ft.channel, ''), coalesce(ft.campaign_id, ''), '', p.currency, p.amount_minor, p.status = 'succeeded')
  ) AS m(metric, per_source, channel, campaign_id, dim, currency, value, keep)
  WHERE m.keep

  UNION ALL
  SELECT r.occurred_at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM h CROSS JOIN LATERAL (SELECT * FROM ingest_refunds x WHERE x.site_id = ${siteId} AND x.occurred_at >= h.hour AND x.occurred_at < h.hour + interval '1 hour' OFFSET 0) r
  CROSS JOIN LATERAL (VALUES
    ('records:refunds'::text, false, ''::text, ''::text, ''::text, ''::text, 1::bigint, true),
    ('refunds', false, '', '', '', r.currency, r.amount_minor, r.status = 'succeeded')
  ) AS m(metric, per_source, channel, campaign_id, dim, currency, value, keep)
  WHERE m.keep

  UNION ALL
  SELECT c.occurred_at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM h CROSS JOIN LATERAL (SELECT * FROM ingest_costs x WHERE x.site_id = ${siteId} AND x.occurred_at >= h.hour AND x.occurred_at < h.hour + interval '1 hour' OFFSET 0) c
  CROSS JOIN LATERAL (VALUES
    ('records:costs'::text, false, ''::text, ''::text, ''::text, ''::text, 1::bigint),
    ('costs', false, '', '', c.category, c.currency, c.amount_minor)
  ) AS m(metric, per_source, channel, campaign_id, dim, currency, value)

  UNION ALL
  SELECT x.occurred_at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM h CROSS JOIN LATERAL (SELECT * FROM ingest_expenses x WHERE x.site_id = ${siteId} AND x.occurred_at >= h.hour AND x.occurred_at < h.hour + interval '1 hour' OFFSET 0) x
  CROSS JOIN LATERAL (VALUES
    ('records:expenses'::text, false, ''::text, ''::text, ''::text, ''::text, 1::bigint),
    ('expenses', false, '', '', x.cost_scope, x.currency, x.amount_minor),
    ('spend', true, '', x.campaign_id, '', x.currency, x.amount_minor)
  ) AS m(metric, per_source, channel, campaign_id, dim, currency, value)

  UNION ALL
  SELECT b.occurred_at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM h CROSS JOIN LATERAL (SELECT * FROM ingest_observations x WHERE x.site_id = ${siteId} AND x.occurred_at >= h.hour AND x.occurred_at < h.hour + interval '1 hour' OFFSET 0) b
  CROSS JOIN LATERAL (VALUES
    ('records:observations'::text, false, ''::text, ''::text, ''::text, ''::text, 1::bigint),
    ('observations', false, '', '', b.status, '', 1)
  ) AS m(metric, per_source, channel, campaign_id, dim, currency, value)

  UNION ALL
  SELECT x.occurred_at, 'churned_subscriptions', false, '', '', '', '', 1
  FROM h CROSS JOIN LATERAL (SELECT occurred_at FROM ingest_subscriptions x WHERE x.site_id = ${siteId} AND x.status IN ('cancelled', 'expired') AND x.occurred_at >= h.hour AND x.occurred_at < h.hour + interval '1 hour' OFFSET 0) x

  UNION ALL
  SELECT x.started_at, 'new_subscriptions', false, '', '', '', '', 1
  FROM h CROSS JOIN LATERAL (SELECT started_at FROM analytics_subscription_starts x WHERE x.site_id = ${siteId} AND x.started_at >= h.hour AND x.started_at < h.hour + interval '1 hour' OFFSET 0) x

  UNION ALL
  SELECT r.occurred_at, 'records:' || r.family, false, '', '', '', '', 1
  FROM h CROSS JOIN LATERAL (
    SELECT 'customers' AS family, occurred_at FROM ingest_customers WHERE site_id = ${siteId} AND occurred_at >= h.hour AND occurred_at < h.hour + interval '1 hour'
    UNION ALL SELECT 'subscriptions', occurred_at FROM ingest_subscriptions WHERE site_id = ${siteId} AND occurred_at >= h.hour AND occurred_at < h.hour + interval '1 hour'
    UNION ALL SELECT 'campaigns', occurred_at FROM ingest_campaigns WHERE site_id = ${siteId} AND occurred_at >= h.hour AND occurred_at < h.hour + interval '1 hour'
    UNION ALL SELECT 'summaries', occurred_at FROM ingest_summaries WHERE site_id = ${siteId} AND occurred_at >= h.hour AND occurred_at < h.hour + interval '1 hour'
  ) r
)
INSERT INTO analytics_counts (site_id, grain, per_source, bucket, metric, channel, campaign_id, dim, currency, value, first_at, last_at)
SELECT ${siteId}, 'q', per_source, date_bin('15 minutes', at, timestamptz '2000-01-01 00:00Z'),
  metric, channel, campaign_id, dim, currency, sum(value),
  CASE WHEN metric LIKE 'records:%' THEN min(at) END,
  CASE WHEN metric LIKE 'records:%' THEN max(at) END
FROM rows
GROUP BY per_source, date_bin('15 minutes', at, timestamptz '2000-01-01 00:00Z'), metric, channel, campaign_id, dim, currency
