-- The apply's analytics bookkeeping, cheaper (issue 21). The statement-level trigger of
-- migration 0017 costs about a third of PostgreSQL's work per ingested event; most of it went
-- to expanding every event into nine candidate rows with a LATERAL VALUES list, whose
-- expressions PostgreSQL rebuilds for every event. Same rows in analytics_pending_counts and
-- analytics_pending_users as before (the users of a row in another order, which no reader
-- depends on); only the events branch changes, the other families write a few rows per batch.

CREATE OR REPLACE FUNCTION analytics_note_inserts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'ingest_events' THEN
    -- Each event's figures, one scan of new_rows per kind of figure. (A LATERAL VALUES list
    -- per event, filtered, gives the same rows but rebuilds its expressions for every event.)
    INSERT INTO analytics_pending_counts (site_id, bucket, metric, per_source, channel, campaign_id, dim, currency, value, first_at, last_at)
    SELECT site_id, date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00Z'), metric, per_source, channel, campaign_id, '', '', count(*),
      CASE WHEN metric = 'records:events' THEN min(occurred_at) END, CASE WHEN metric = 'records:events' THEN max(occurred_at) END
    FROM (
      SELECT site_id, occurred_at, 'records:events'::text AS metric, false AS per_source, ''::text AS channel, ''::text AS campaign_id
      FROM new_rows
      UNION ALL
      SELECT site_id, occurred_at, CASE event_type WHEN 'visit' THEN 'visit_events' WHEN 'registration_completed' THEN 'registrations'
        WHEN 'activation_completed' THEN 'activations' ELSE 'active_events' END, false, '', ''
      FROM new_rows WHERE event_type IN ('visit', 'registration_completed', 'activation_completed', 'usage', 'workflow_completed')
      UNION ALL
      -- A visit with a session counts through analytics_session_starts.
      SELECT site_id, occurred_at, 'visits', false, '', '' FROM new_rows WHERE event_type = 'visit' AND session_id IS NULL
      UNION ALL
      SELECT site_id, occurred_at, CASE event_type WHEN 'visit' THEN 'visits' WHEN 'registration_completed' THEN 'registrations' ELSE 'activations' END,
        true, coalesce(channel, ''), coalesce(campaign_id, '')
      FROM new_rows WHERE (event_type = 'visit' AND session_id IS NULL) OR event_type IN ('registration_completed', 'activation_completed')
    ) m
    GROUP BY 1, 2, 3, 4, 5, 6;

    -- Distinct first, so array_agg need not sort each group.
    INSERT INTO analytics_pending_users (site_id, bucket, kind, users)
    SELECT site_id, bucket, kind, array_agg(external_user_id)
    FROM (
      SELECT DISTINCT site_id, date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00Z') AS bucket,
        analytics_set_kind(event_type) AS kind, external_user_id
      FROM new_rows WHERE analytics_set_kind(event_type) IS NOT NULL AND external_user_id IS NOT NULL
    ) u
    GROUP BY 1, 2, 3;

    INSERT INTO analytics_pending_keys (site_id, kind, keys, ats)
    SELECT site_id, kind, array_agg(key), array_agg(at)
    FROM (
      SELECT site_id, 'session' AS kind, session_id AS key, min(occurred_at) AS at FROM new_rows
      WHERE event_type = 'visit' AND session_id IS NOT NULL GROUP BY 1, 3
      UNION ALL
      SELECT site_id, 'touch', external_user_id, min(occurred_at) FROM new_rows
      WHERE external_user_id IS NOT NULL AND (channel IS NOT NULL OR campaign_id IS NOT NULL) GROUP BY 1, 3
    ) k
    GROUP BY site_id, kind;

  ELSIF TG_TABLE_NAME = 'ingest_orders' THEN
    INSERT INTO analytics_pending_counts (site_id, bucket, metric, per_source, channel, campaign_id, dim, currency, value, first_at, last_at)
    SELECT site_id, date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00Z'), m.metric, false, '', '', '', '', count(*),
      CASE WHEN m.metric = 'records:orders' THEN min(occurred_at) END, CASE WHEN m.metric = 'records:orders' THEN max(occurred_at) END
    FROM new_rows CROSS JOIN LATERAL (VALUES ('records:orders'::text, true), ('paid_orders', status = 'paid')) AS m(metric, keep)
    WHERE m.keep
    GROUP BY 1, 2, 3;
    INSERT INTO analytics_pending_money (site_id, bucket, metric, external_user_id, currency, value)
    SELECT site_id, date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00Z'), 'paid_orders', external_user_id, '', count(*)
    FROM new_rows WHERE status = 'paid' GROUP BY 1, 2, 4;

  ELSIF TG_TABLE_NAME = 'ingest_payments' THEN
    INSERT INTO analytics_pending_counts (site_id, bucket, metric, per_source, channel, campaign_id, dim, currency, value, first_at, last_at)
    SELECT site_id, date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00Z'), m.metric, false, '', '', '', m.currency, sum(m.value),
      CASE WHEN m.metric = 'records:payments' THEN min(occurred_at) END, CASE WHEN m.metric = 'records:payments' THEN max(occurred_at) END
    FROM new_rows CROSS JOIN LATERAL (VALUES
      ('records:payments'::text, ''::text, 1::bigint, true),
      ('receipts', currency, amount_minor, status = 'succeeded')
    ) AS m(metric, currency, value, keep)
    WHERE m.keep
    GROUP BY 1, 2, 3, 8;
    INSERT INTO analytics_pending_money (site_id, bucket, metric, external_user_id, currency, value)
    SELECT site_id, date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00Z'), 'revenue', external_user_id, currency, sum(amount_minor)
    FROM new_rows WHERE status = 'succeeded' GROUP BY 1, 2, 4, 5;

  ELSE
    -- Every other family: its records' count and the figure it carries, if any. Read through
    -- the row as JSON, so one statement serves all of them (none is written in bulk).
    INSERT INTO analytics_pending_counts (site_id, bucket, metric, per_source, channel, campaign_id, dim, currency, value, first_at, last_at)
    SELECT r.site_id, date_bin('15 minutes', r.occurred_at, timestamptz '2000-01-01 00:00Z'), m.metric, m.per_source, '', m.campaign_id, m.dim, m.currency, sum(m.value),
      CASE WHEN m.metric LIKE 'records:%' THEN min(r.occurred_at) END, CASE WHEN m.metric LIKE 'records:%' THEN max(r.occurred_at) END
    FROM new_rows r
    CROSS JOIN LATERAL (SELECT to_jsonb(r) AS j, substr(TG_TABLE_NAME, 8) AS family) x
    CROSS JOIN LATERAL (VALUES
      ('records:' || x.family, false, ''::text, ''::text, ''::text, 1::bigint, true),
      ('refunds', false, '', '', x.j->>'currency', (x.j->>'amount_minor')::bigint, x.family = 'refunds' AND x.j->>'status' = 'succeeded'),
      ('costs', false, '', x.j->>'category', x.j->>'currency', (x.j->>'amount_minor')::bigint, x.family = 'costs'),
      ('expenses', false, '', x.j->>'cost_scope', x.j->>'currency', (x.j->>'amount_minor')::bigint, x.family = 'expenses'),
      ('spend', true, x.j->>'campaign_id', '', x.j->>'currency', (x.j->>'amount_minor')::bigint, x.family = 'expenses'),
      ('observations', false, '', x.j->>'status', '', 1, x.family = 'observations'),
      ('churned_subscriptions', false, '', '', '', 1, x.family = 'subscriptions' AND x.j->>'status' IN ('cancelled', 'expired'))
    ) AS m(metric, per_source, campaign_id, dim, currency, value, keep)
    WHERE m.keep
    GROUP BY 1, 2, 3, 4, 6, 7, 8;
  END IF;
  RETURN NULL;
END $$;
