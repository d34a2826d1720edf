-- The ragged ends of a read: spans no whole rollup bucket fits (src/analytics/cover.ts, each
-- shorter than a quarter hour), counted from the raw records with the metrics and sources of
-- sql/analytics/rollup-counts.sql. Takes ${siteId} and the parallel arrays ${rawLos}, ${rawHis}
-- (timestamptz[], hi exclusive), ${rawGroups} (int[]). CTEs for a read's WITH (repo.ts), ending
-- in edge(grp, at, metric, per_source, channel, campaign_id, dim, currency, value).
-- Each span's records are one index range scan (LATERAL ... OFFSET 0, as in rollup-counts.sql).
edge_spans AS (
  SELECT * FROM unnest(${rawLos}::timestamptz[], ${rawHis}::timestamptz[], ${rawGroups}::int[]) AS s(lo, hi, grp)
),
edge_events AS (
  SELECT s.grp, e.*, st.session_start
  FROM edge_spans s CROSS JOIN LATERAL (SELECT * FROM ingest_events x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi OFFSET 0) e
  CROSS JOIN LATERAL (SELECT CASE WHEN e.event_type = 'visit' THEN e.session_id IS NULL OR NOT EXISTS (
      SELECT 1 FROM ingest_events o
      WHERE o.site_id = e.site_id AND o.event_type = 'visit' AND o.session_id = e.session_id
        AND (o.occurred_at, o.event_id) < (e.occurred_at, e.event_id)) END AS session_start OFFSET 0) st
),
edge AS (
  SELECT ev.grp, ev.occurred_at AS at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM edge_events ev CROSS JOIN LATERAL (VALUES
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
  SELECT s.grp, o.occurred_at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM edge_spans s CROSS JOIN LATERAL (SELECT * FROM ingest_orders x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi OFFSET 0) o
  LEFT JOIN LATERAL (SELECT * FROM analytics_first_touch(${siteId}::uuid, o.external_user_id) WHERE o.status = 'paid') ft ON true
  CROSS JOIN LATERAL (VALUES
    ('records:orders'::text, false, ''::text, ''::text, ''::text, ''::text, 1::bigint, true),
    ('paid_orders', false, '', '', '', '', 1, o.status = 'paid'),
    ('paid_orders', true, coalesce(ft.channel, ''), coalesce(ft.campaign_id, ''), '', '', 1, o.status = 'paid')
  ) AS m(metric, per_source, channel, campaign_id, dim, currency, value, keep)
  WHERE m.keep

  UNION ALL
  SELECT s.grp, p.occurred_at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM edge_spans s CROSS JOIN LATERAL (SELECT * FROM ingest_payments x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi OFFSET 0) p
  LEFT JOIN LATERAL (SELECT * FROM analytics_first_touch(${siteId}::uuid, p.external_user_id) WHERE p.status = 'succeeded') ft ON true
  CROSS JOIN LATERAL (VALUES
    ('records:payments'::text, false, ''::text, ''::text, ''::text, ''::text, 1::bigint, true),
    ('receipts', false, '', '', '', p.currency, p.amount_minor, p.status = 'succeeded'),
    ('revenue', true, coalesce(ft.channel, ''), coalesce(ft.campaign_id, ''), '', p.currency, p.amount_minor, p.status = 'succeeded')
  ) AS m(metric, per_source, channel, campaign_id, dim, currency, value, keep)
  WHERE m.keep

  UNION ALL
  SELECT s.grp, r.occurred_at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM edge_spans s CROSS JOIN LATERAL (SELECT * FROM ingest_refunds x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi OFFSET 0) r
  CROSS JOIN LATERAL (VALUES
    ('records:refunds'::text, false, ''::text, ''::text, ''::text, ''::text, 1::bigint, true),
    ('refunds', false, '', '', '', r.currency, r.amount_minor, r.status = 'succeeded')
  ) AS m(metric, per_source, channel, campaign_id, dim, currency, value, keep)
  WHERE m.keep

  UNION ALL
  SELECT s.grp, c.occurred_at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM edge_spans s CROSS JOIN LATERAL (SELECT * FROM ingest_costs x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi OFFSET 0) c
  CROSS JOIN LATERAL (VALUES
    ('records:costs'::text, false, ''::text, ''::text, ''::text, ''::text, 1::bigint),
    ('costs', false, '', '', c.category, c.currency, c.amount_minor)
  ) AS m(metric, per_source, channel, campaign_id, dim, currency, value)

  UNION ALL
  SELECT s.grp, x.occurred_at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM edge_spans s CROSS JOIN LATERAL (SELECT * FROM ingest_expenses x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi OFFSET 0) x
  CROSS JOIN LATERAL (VALUES
    ('records:expenses'::text, false, ''::text, ''::text, ''::text, ''::text, 1::bigint),
    ('expenses', false, '', '', x.cost_scope, x.currency, x.amount_minor),
    ('spend', true, '', x.campaign_id, '', x.currency, x.amount_minor)
  ) AS m(metric, per_source, channel, campaign_id, dim, currency, value)

  UNION ALL
  SELECT s.grp, b.occurred_at, m.metric, m.per_source, m.channel, m.campaign_id, m.dim, m.currency, m.value
  FROM edge_spans s CROSS JOIN LATERAL (SELECT * FROM ingest_observations x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi OFFSET 0) b
  CROSS JOIN LATERAL (VALUES
    ('records:observations'::text, false, ''::text, ''::text, ''::text, ''::text, 1::bigint),
    ('observations', false, '', '', b.status, '', 1)
  ) AS m(metric, per_source, channel, campaign_id, dim, currency, value)

  UNION ALL
  SELECT s.grp, x.occurred_at, 'churned_subscriptions', false, '', '', '', '', 1
  FROM edge_spans s CROSS JOIN LATERAL (SELECT occurred_at FROM ingest_subscriptions x WHERE x.site_id = ${siteId} AND x.status IN ('cancelled', 'expired') AND x.occurred_at >= s.lo AND x.occurred_at < s.hi OFFSET 0) x

  UNION ALL
  SELECT s.grp, x.started_at, 'new_subscriptions', false, '', '', '', '', 1
  FROM edge_spans s CROSS JOIN LATERAL (SELECT started_at FROM analytics_subscription_starts x WHERE x.site_id = ${siteId} AND x.started_at >= s.lo AND x.started_at < s.hi OFFSET 0) x

  UNION ALL
  SELECT s.grp, r.occurred_at, 'records:' || r.family, false, '', '', '', '', 1
  FROM edge_spans s CROSS JOIN LATERAL (
    SELECT 'customers' AS family, occurred_at FROM ingest_customers WHERE site_id = ${siteId} AND occurred_at >= s.lo AND occurred_at < s.hi
    UNION ALL SELECT 'subscriptions', occurred_at FROM ingest_subscriptions WHERE site_id = ${siteId} AND occurred_at >= s.lo AND occurred_at < s.hi
    UNION ALL SELECT 'campaigns', occurred_at FROM ingest_campaigns WHERE site_id = ${siteId} AND occurred_at >= s.lo AND occurred_at < s.hi
    UNION ALL SELECT 'summaries', occurred_at FROM ingest_summaries WHERE site_id = ${siteId} AND occurred_at >= s.lo AND occurred_at < s.hi
  ) r
)
