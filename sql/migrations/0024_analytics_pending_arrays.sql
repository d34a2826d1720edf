-- A statement's pending analytics as one row per table instead of one per figure (issue 21).
-- A 500-event batch spread over a day wrote about 430 rows to analytics_pending_counts and 280
-- to analytics_pending_users (a row per quarter hour, metric and source; per quarter hour and
-- set kind), each a heap tuple and an index entry, all deleted again by the next fold. Now the
-- statement's deltas go in one row as an array of composite values, and its users as three
-- parallel arrays (one element per quarter hour, set kind and user). Readers unnest them:
-- sql/analytics/pending-deltas.sql, edge-sets.sql, fold-sets.sql, fold-user-ids.sql. What
-- the arrays hold is what the rows held; the figures read from them are the same.

CREATE TYPE analytics_pending_count AS (
  bucket      timestamptz,
  metric      text,
  per_source  boolean,
  channel     text,
  campaign_id text,
  dim         text,
  currency    text,
  value       bigint,
  first_at    timestamptz,
  last_at     timestamptz
);

ALTER TABLE analytics_pending_counts RENAME TO analytics_pending_counts_rows;
ALTER INDEX analytics_pending_counts_site_idx RENAME TO analytics_pending_counts_rows_site_idx;
-- The record-local figures of one statement's records, summed per quarter hour, metric and
-- source (the columns of analytics_counts).
CREATE TABLE analytics_pending_counts (
  site_id uuid NOT NULL,
  counts  analytics_pending_count[] NOT NULL
);
CREATE INDEX analytics_pending_counts_site_idx ON analytics_pending_counts (site_id);
INSERT INTO analytics_pending_counts (site_id, counts)
SELECT site_id, array_agg((bucket, metric, per_source, channel, campaign_id, dim, currency, value, first_at, last_at)::analytics_pending_count)
FROM analytics_pending_counts_rows GROUP BY site_id;
DROP TABLE analytics_pending_counts_rows;

ALTER TABLE analytics_pending_users RENAME TO analytics_pending_users_rows;
ALTER INDEX analytics_pending_users_site_idx RENAME TO analytics_pending_users_rows_site_idx;
-- Users of one statement's events: users[i] is in set kinds[i] in quarter hour buckets[i].
CREATE TABLE analytics_pending_users (
  site_id uuid NOT NULL,
  buckets timestamptz[] NOT NULL,
  kinds   text[] NOT NULL,
  users   text[] NOT NULL
);
CREATE INDEX analytics_pending_users_site_idx ON analytics_pending_users (site_id);
INSERT INTO analytics_pending_users (site_id, buckets, kinds, users)
SELECT p.site_id, array_agg(p.bucket), array_agg(p.kind), array_agg(u.external_user_id)
FROM analytics_pending_users_rows p CROSS JOIN LATERAL unnest(p.users) AS u(external_user_id)
GROUP BY p.site_id;
DROP TABLE analytics_pending_users_rows;

-- Migration 0023's function, each figure INSERT now aggregating its rows into one.
CREATE OR REPLACE FUNCTION analytics_note_inserts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'ingest_events' THEN
    -- Each event's figures, one scan of new_rows per kind of figure. (A LATERAL VALUES list
    -- per event, filtered, gives the same rows but rebuilds its expressions for every event.)
    INSERT INTO analytics_pending_counts (site_id, counts)
    SELECT site_id, array_agg((bucket, metric, per_source, channel, campaign_id, '', '', value, first_at, last_at)::analytics_pending_count)
    FROM (
      SELECT site_id, date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00Z') AS bucket, metric, per_source, channel, campaign_id,
        count(*) AS value,
        CASE WHEN metric = 'records:events' THEN min(occurred_at) END AS first_at,
        CASE WHEN metric = 'records:events' THEN max(occurred_at) END AS last_at
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
      GROUP BY 1, 2, 3, 4, 5, 6
    ) c
    GROUP BY site_id;

    INSERT INTO analytics_pending_users (site_id, buckets, kinds, users)
    SELECT site_id, array_agg(bucket), array_agg(kind), array_agg(external_user_id)
    FROM (
      SELECT DISTINCT site_id, date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00Z') AS bucket,
        analytics_set_kind(event_type) AS kind, external_user_id
      FROM new_rows WHERE analytics_set_kind(event_type) IS NOT NULL AND external_user_id IS NOT NULL
    ) u
    GROUP BY site_id;

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
    INSERT INTO analytics_pending_counts (site_id, counts)
    SELECT site_id, array_agg((bucket, metric, false, '', '', '', '', value, first_at, last_at)::analytics_pending_count)
    FROM (
      SELECT site_id, date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00Z') AS bucket, m.metric, count(*) AS value,
        CASE WHEN m.metric = 'records:orders' THEN min(occurred_at) END AS first_at,
        CASE WHEN m.metric = 'records:orders' THEN max(occurred_at) END AS last_at
      FROM new_rows CROSS JOIN LATERAL (VALUES ('records:orders'::text, true), ('paid_orders', status = 'paid')) AS m(metric, keep)
      WHERE m.keep
      GROUP BY 1, 2, 3
    ) c
    GROUP BY site_id;
    INSERT INTO analytics_pending_money (site_id, bucket, metric, external_user_id, currency, value)
    SELECT site_id, date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00Z'), 'paid_orders', external_user_id, '', count(*)
    FROM new_rows WHERE status = 'paid' GROUP BY 1, 2, 4;

  ELSIF TG_TABLE_NAME = 'ingest_payments' THEN
    INSERT INTO analytics_pending_counts (site_id, counts)
    SELECT site_id, array_agg((bucket, metric, false, '', '', '', currency, value, first_at, last_at)::analytics_pending_count)
    FROM (
      SELECT site_id, date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00Z') AS bucket, m.metric, m.currency, sum(m.value)::bigint AS value,
        CASE WHEN m.metric = 'records:payments' THEN min(occurred_at) END AS first_at,
        CASE WHEN m.metric = 'records:payments' THEN max(occurred_at) END AS last_at
      FROM new_rows CROSS JOIN LATERAL (VALUES
        ('records:payments'::text, ''::text, 1::bigint, true),
        ('receipts', currency, amount_minor, status = 'succeeded')
      ) AS m(metric, currency, value, keep)
      WHERE m.keep
      GROUP BY 1, 2, 3, 4
    ) c
    GROUP BY site_id;
    INSERT INTO analytics_pending_money (site_id, bucket, metric, external_user_id, currency, value)
    SELECT site_id, date_bin('15 minutes', occurred_at, timestamptz '2000-01-01 00:00Z'), 'revenue', external_user_id, currency, sum(amount_minor)
    FROM new_rows WHERE status = 'succeeded' GROUP BY 1, 2, 4, 5;

  ELSE
    -- Every other family: its records' count and the figure it carries, if any. Read through
    -- the row as JSON, so one statement serves all of them (none is written in bulk).
    INSERT INTO analytics_pending_counts (site_id, counts)
    SELECT site_id, array_agg((bucket, metric, per_source, '', campaign_id, dim, currency, value, first_at, last_at)::analytics_pending_count)
    FROM (
      SELECT r.site_id, date_bin('15 minutes', r.occurred_at, timestamptz '2000-01-01 00:00Z') AS bucket, m.metric, m.per_source, m.campaign_id, m.dim, m.currency,
        sum(m.value)::bigint AS value,
        CASE WHEN m.metric LIKE 'records:%' THEN min(r.occurred_at) END AS first_at,
        CASE WHEN m.metric LIKE 'records:%' THEN max(r.occurred_at) END AS last_at
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
      GROUP BY 1, 2, 3, 4, 5, 6, 7
    ) c
    GROUP BY site_id;
  END IF;
  RETURN NULL;
END $$;

-- Migration 0017's function, its +1/-1 rows aggregated into one.
CREATE OR REPLACE FUNCTION analytics_note_subscription_start() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_pending_counts (site_id, counts)
  SELECT site_id, array_agg((bucket, 'new_subscriptions', false, '', '', '', '', value, NULL, NULL)::analytics_pending_count)
  FROM (
    SELECT n.site_id, date_bin('15 minutes', n.period_start, timestamptz '2000-01-01 00:00Z') AS bucket, 1::bigint AS value
    FROM new_rows n LEFT JOIN analytics_subscription_starts s USING (site_id, subscription_id)
    WHERE s.started_at IS NULL OR n.period_start < s.started_at
    UNION ALL
    SELECT s.site_id, date_bin('15 minutes', s.started_at, timestamptz '2000-01-01 00:00Z'), -1
    FROM new_rows n JOIN analytics_subscription_starts s USING (site_id, subscription_id)
    WHERE n.period_start < s.started_at
  ) c
  GROUP BY site_id;

  INSERT INTO analytics_subscription_starts (site_id, subscription_id, started_at)
  SELECT site_id, subscription_id, period_start FROM new_rows ORDER BY 1, 2
  ON CONFLICT (site_id, subscription_id) DO UPDATE SET started_at = least(analytics_subscription_starts.started_at, EXCLUDED.started_at);
  RETURN NULL;
END $$;
