-- Rollups that cost what arrived (issue 15). Until now every rollup pass deleted and rebuilt
-- each dirty hour from its raw records, so under sustained ingest into the current hour a pass
-- cost what the hour held and fell further behind with every batch.
--
-- Now the transaction that inserts a batch's records also appends the batch's contribution
-- (its delta) to the analytics_pending_* tables below, append-only: no row is updated, so
-- concurrent batches never wait on each other's rollup rows. The rollup job (the fold) moves the
-- pending deltas into the rollups under the site's lock, and every view reads the rollups plus
-- what is still pending in one snapshot, so a view asked after a batch's 200 includes it.
-- Revised records (UPDATE) still mark their old and new hours in analytics_dirty, which the
-- fold rebuilds from the raw records as before.
--
-- freshness.as_of is now the instant before which every acknowledged batch is in the figures,
-- not when the rollups were last computed: analytics_state is no longer written or read (drop it
-- once no older worker runs).
--
-- What a record contributes on its own is summed per statement here. Two kinds of figures
-- depend on other records, and are derived by the fold (and by views) from what changed:
--   - visits of sessions: a session counts once, at its earliest visit (analytics_session_starts
--     holds the start the rollups count; a touched session whose start moved is moved);
--   - money per acquisition source: attributed to the user's first touch (analytics_user_touch
--     holds the touch the rollups attribute by; a user whose touch moved has all their money
--     moved, by the orders and payments of analytics_pending_money that are not folded yet).

-- Record-local figures, signed, per quarter hour: the columns of analytics_counts.
CREATE TABLE analytics_pending_counts (
  site_id     uuid NOT NULL,
  bucket      timestamptz NOT NULL,
  metric      text NOT NULL,
  per_source  boolean NOT NULL,
  channel     text NOT NULL,
  campaign_id text NOT NULL,
  dim         text NOT NULL,
  currency    text NOT NULL,
  value       bigint NOT NULL,
  first_at    timestamptz,
  last_at     timestamptz
);
CREATE INDEX analytics_pending_counts_site_idx ON analytics_pending_counts (site_id);

-- Users of inserted events per quarter hour and set kind (visitors, registered, …).
CREATE TABLE analytics_pending_users (
  site_id uuid NOT NULL,
  bucket  timestamptz NOT NULL,
  kind    text NOT NULL,
  users   text[] NOT NULL
);
CREATE INDEX analytics_pending_users_site_idx ON analytics_pending_users (site_id);

-- Keys whose derived figures may have moved: sessions with a new visit ('session'), users with
-- a new event carrying a channel or campaign ('touch'); ats[i]: the earliest such event of
-- keys[i] (a key whose new events all come after what the rollups count needs no lookup).
CREATE TABLE analytics_pending_keys (
  site_id uuid NOT NULL,
  kind    text NOT NULL CHECK (kind IN ('session', 'touch')),
  keys    text[] NOT NULL,
  ats     timestamptz[] NOT NULL
);
CREATE INDEX analytics_pending_keys_site_idx ON analytics_pending_keys (site_id);

-- Paid orders and succeeded payments not folded yet, per quarter hour and user: their
-- per-source figures (paid_orders, revenue) follow the user's first touch.
CREATE TABLE analytics_pending_money (
  site_id          uuid NOT NULL,
  bucket           timestamptz NOT NULL,
  metric           text NOT NULL,
  external_user_id text,
  currency         text NOT NULL,
  value            bigint NOT NULL
);
CREATE INDEX analytics_pending_money_site_idx ON analytics_pending_money (site_id);

-- The start the rollups count for each session with a visit (its earliest visit).
CREATE TABLE analytics_session_starts (
  site_id     uuid NOT NULL,
  session_id  text NOT NULL,
  at          timestamptz NOT NULL,
  event_id    text NOT NULL,
  channel     text NOT NULL,
  campaign_id text NOT NULL,
  PRIMARY KEY (site_id, session_id)
);

-- The first touch (the user's earliest event with a channel or campaign) the rollups attribute
-- each user's money to; no row: none ('', '').
CREATE TABLE analytics_user_touch (
  site_id          uuid NOT NULL,
  external_user_id text NOT NULL,
  at               timestamptz NOT NULL,
  event_id         text NOT NULL,
  channel          text NOT NULL,
  campaign_id      text NOT NULL,
  PRIMARY KEY (site_id, external_user_id)
);

-- Hours dirty now were marked for a rebuild that also took the hours depending on them; the
-- fold no longer looks for those (it moves session starts and first touches instead, from the
-- state below), so they are marked here: every hour holding a visit of a session visited in a
-- dirty hour, or an order or payment of a user active in one.
WITH dirty AS (SELECT DISTINCT site_id, hour FROM analytics_dirty),
touched AS (
  SELECT DISTINCT e.site_id, e.session_id, e.external_user_id
  FROM dirty d JOIN ingest_events e ON e.site_id = d.site_id AND e.occurred_at >= d.hour AND e.occurred_at < d.hour + interval '1 hour'
)
INSERT INTO analytics_dirty (site_id, hour)
SELECT DISTINCT site_id, date_trunc('hour', at, 'UTC') FROM (
  SELECT o.site_id, o.occurred_at AS at FROM touched t JOIN ingest_events o
    ON o.site_id = t.site_id AND o.event_type = 'visit' AND o.session_id = t.session_id
  UNION ALL
  SELECT o.site_id, o.occurred_at FROM touched t JOIN ingest_orders o ON o.site_id = t.site_id AND o.external_user_id = t.external_user_id
  UNION ALL
  SELECT p.site_id, p.occurred_at FROM touched t JOIN ingest_payments p ON p.site_id = t.site_id AND p.external_user_id = t.external_user_id
) x;

-- What is stored today, as the rollups count it once the hours dirty now are rebuilt.
INSERT INTO analytics_session_starts (site_id, session_id, at, event_id, channel, campaign_id)
SELECT DISTINCT ON (site_id, session_id) site_id, session_id, occurred_at, event_id, coalesce(channel, ''), coalesce(campaign_id, '')
FROM ingest_events WHERE event_type = 'visit' AND session_id IS NOT NULL
ORDER BY site_id, session_id, occurred_at, event_id;

INSERT INTO analytics_user_touch (site_id, external_user_id, at, event_id, channel, campaign_id)
SELECT DISTINCT ON (site_id, external_user_id) site_id, external_user_id, occurred_at, event_id, coalesce(channel, ''), coalesce(campaign_id, '')
FROM ingest_events WHERE external_user_id IS NOT NULL AND (channel IS NOT NULL OR campaign_id IS NOT NULL)
ORDER BY site_id, external_user_id, occurred_at, event_id;

-- The user set (analytics_sets.kind) an event of this type puts its user in; null: none.
CREATE FUNCTION analytics_set_kind(event_type text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE event_type
    WHEN 'visit' THEN 'visitors'
    WHEN 'registration_completed' THEN 'registered'
    WHEN 'activation_completed' THEN 'activated'
    WHEN 'usage' THEN 'active'
    WHEN 'workflow_completed' THEN 'active'
    WHEN 'order_paid' THEN 'paid' END
$$;

-- The contribution of a statement's inserted records (same metrics as
-- sql/analytics/rollup-counts.sql, whose header lists them).
CREATE FUNCTION analytics_note_inserts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'ingest_events' THEN
    INSERT INTO analytics_pending_counts (site_id, bucket, metric, per_source, channel, campaign_id, dim, currency, value, first_at, last_at)
    SELECT e.site_id, date_bin('15 minutes', e.occurred_at, timestamptz '2000-01-01 00:00Z'), m.metric, m.per_source, m.channel, m.campaign_id, '', '', count(*),
      CASE WHEN m.metric = 'records:events' THEN min(e.occurred_at) END, CASE WHEN m.metric = 'records:events' THEN max(e.occurred_at) END
    FROM new_rows e CROSS JOIN LATERAL (VALUES
      ('records:events'::text, false, ''::text, ''::text, true),
      ('visit_events', false, '', '', e.event_type = 'visit'),
      ('active_events', false, '', '', e.event_type IN ('usage', 'workflow_completed')),
      -- A visit with a session counts through analytics_session_starts.
      ('visits', false, '', '', e.event_type = 'visit' AND e.session_id IS NULL),
      ('visits', true, coalesce(e.channel, ''), coalesce(e.campaign_id, ''), e.event_type = 'visit' AND e.session_id IS NULL),
      ('registrations', false, '', '', e.event_type = 'registration_completed'),
      ('registrations', true, coalesce(e.channel, ''), coalesce(e.campaign_id, ''), e.event_type = 'registration_completed'),
      ('activations', false, '', '', e.event_type = 'activation_completed'),
      ('activations', true, coalesce(e.channel, ''), coalesce(e.campaign_id, ''), e.event_type = 'activation_completed')
    ) AS m(metric, per_source, channel, campaign_id, keep)
    WHERE m.keep
    GROUP BY 1, 2, 3, 4, 5, 6;

    INSERT INTO analytics_pending_users (site_id, bucket, kind, users)
    SELECT e.site_id, date_bin('15 minutes', e.occurred_at, timestamptz '2000-01-01 00:00Z'), k.kind, array_agg(DISTINCT e.external_user_id)
    FROM new_rows e CROSS JOIN LATERAL (SELECT analytics_set_kind(e.event_type) AS kind) k
    WHERE k.kind IS NOT NULL AND e.external_user_id IS NOT NULL
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

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['customers', 'events', 'orders', 'payments', 'refunds', 'subscriptions',
                           'costs', 'campaigns', 'expenses', 'observations', 'summaries'] LOOP
    EXECUTE format('DROP TRIGGER analytics_dirty_ins ON ingest_%s', t);
    EXECUTE format('CREATE TRIGGER analytics_pending_ins AFTER INSERT ON ingest_%s REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_note_inserts()', t);
  END LOOP;
END $$;

-- A subscription's first start, where new_subscriptions counts it, appears or moves earlier:
-- +1 where it now is, -1 where it was. Read before the upsert below, so the old start is there.
CREATE OR REPLACE FUNCTION analytics_note_subscription_start() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_pending_counts (site_id, bucket, metric, per_source, channel, campaign_id, dim, currency, value)
  SELECT n.site_id, date_bin('15 minutes', n.period_start, timestamptz '2000-01-01 00:00Z'), 'new_subscriptions', false, '', '', '', '', 1
  FROM new_rows n LEFT JOIN analytics_subscription_starts s USING (site_id, subscription_id)
  WHERE s.started_at IS NULL OR n.period_start < s.started_at
  UNION ALL
  SELECT s.site_id, date_bin('15 minutes', s.started_at, timestamptz '2000-01-01 00:00Z'), 'new_subscriptions', false, '', '', '', '', -1
  FROM new_rows n JOIN analytics_subscription_starts s USING (site_id, subscription_id)
  WHERE n.period_start < s.started_at;

  INSERT INTO analytics_subscription_starts (site_id, subscription_id, started_at)
  SELECT site_id, subscription_id, period_start FROM new_rows ORDER BY 1, 2
  ON CONFLICT (site_id, subscription_id) DO UPDATE SET started_at = least(analytics_subscription_starts.started_at, EXCLUDED.started_at);
  RETURN NULL;
END $$;

-- The bitmap chunk (analytics_sets.bits) holding the users of `ids`, all of one chunk: bit i is
-- bit (i & 7) of byte i >> 3, counted from the left as bit strings are, written as hex (zero
-- bytes up to each set byte, then padded to 8 KiB).
CREATE FUNCTION analytics_bits(ids integer[]) RETURNS bit(65536) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ('x' || rpad(string_agg(repeat('00', byte - prev - 1) || lpad(to_hex(val), 2, '0'), '' ORDER BY byte), 16384, '0'))::bit(65536)
  FROM (
    SELECT byte, val, lag(byte, 1, -1) OVER (ORDER BY byte) AS prev
    FROM (SELECT (id & 65535) >> 3 AS byte, bit_or(128 >> (id & 7)) AS val FROM unnest(ids) AS id GROUP BY 1) b
  ) x
$$;
