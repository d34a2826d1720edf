-- Analytics rollups (issue 4, CONTRACT §5).
--
-- Time is stored in UTC buckets of four grains: 'q' 15 minutes, 'h' hour, 'd' UTC day, 'm' UTC
-- month. A coarser bucket is exactly the sum (or union) of the finer ones inside it, so any
-- window whose ends fall on a quarter hour — every local midnight of every IANA zone today,
-- Asia/Kathmandu's +05:45 included — is covered exactly by a few buckets: quarter hours and
-- hours at the ragged edges, days and months in between (src/analytics/cover.ts).

-- Hours of a site whose raw records changed since the last rollup. Filled by the triggers below
-- inside the ingest transaction (old and new hour of a revised record alike), drained by the
-- rollup job (sql/analytics/rollup-drain.sql). marked_at keeps the oldest pending change: the
-- freshness lag.
CREATE TABLE analytics_dirty (
  site_id   uuid NOT NULL,
  hour      timestamptz NOT NULL,
  marked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (site_id, hour)
);

-- Additive figures. per_source = false: site totals (channel, campaign_id empty);
-- per_source = true: the same figures split by acquisition source, for the acquisition view.
-- dim: a category, cost scope or observation status; '' when the metric has none. currency:
-- '' for counts. first_at/last_at: the earliest and latest occurred_at of the records counted,
-- kept for the `records:<family>` metrics that feed coverage.
CREATE TABLE analytics_counts (
  site_id     uuid NOT NULL,
  grain       text NOT NULL CHECK (grain IN ('q', 'h', 'd', 'm')),
  per_source  boolean NOT NULL,
  bucket      timestamptz NOT NULL,
  metric      text NOT NULL,
  channel     text NOT NULL DEFAULT '',
  campaign_id text NOT NULL DEFAULT '',
  dim         text NOT NULL DEFAULT '',
  currency    text NOT NULL DEFAULT '',
  value       bigint NOT NULL,
  first_at    timestamptz,
  last_at     timestamptz,
  -- Day rows of site totals only: the 24 hourly values of the UTC day, so the local days of
  -- any whole-hour zone are read from one row per UTC day instead of 24 hour rows.
  hours       bigint[],
  -- INCLUDE: reads of a window are index-only scans of many small ranges.
  PRIMARY KEY (site_id, grain, per_source, bucket, metric, channel, campaign_id, dim, currency) INCLUDE (value, first_at, last_at, hours)
);
-- Every statement on a bucket range names per_source, `IN (false, true)` when it means both:
-- the primary key can serve the range only once per_source is fixed.

-- Sets of users for exact distinct counts over any window: bit i of chunk c is the user whose
-- dictionary id (analytics_user_ids) is c * 65536 + i. A window's distinct users are the popcount
-- of the OR of its buckets' bitmaps; funnels AND them, cohorts AND NOT them. Chunks of 8 KiB
-- stay above the TOAST threshold, so lz4 compresses the sparse quarter-hour bitmaps to a few
-- hundred bytes, and only chunks with a bit set are stored.
CREATE TABLE analytics_sets (
  site_id uuid NOT NULL,
  grain   text NOT NULL CHECK (grain IN ('q', 'h', 'd', 'm')),
  kind    text NOT NULL,
  bucket  timestamptz NOT NULL,
  chunk   integer NOT NULL,
  bits    bit(65536) COMPRESSION lz4 NOT NULL,
  -- bucket before kind: a rollup rewrites every kind of a bucket range at once.
  PRIMARY KEY (site_id, grain, bucket, kind, chunk)
);

-- Dense per-site ids of external_user_id, assigned in order of first activity, so the users
-- active in a period sit in few chunks.
CREATE TABLE analytics_user_ids (
  site_id          uuid NOT NULL,
  external_user_id text NOT NULL,
  id               integer NOT NULL,
  PRIMARY KEY (site_id, external_user_id)
);
CREATE UNIQUE INDEX analytics_user_ids_id_idx ON analytics_user_ids (site_id, id);

-- When the rollups of a site were last computed: freshness.as_of.
CREATE TABLE analytics_state (
  site_id     uuid PRIMARY KEY,
  computed_at timestamptz NOT NULL
);

-- The first period_start a subscription ever had, whatever its later revisions say: "new
-- subscriptions" in a window. Only the latest revision is kept in ingest_subscriptions, so this
-- is captured per written revision by a trigger.
CREATE TABLE analytics_subscription_starts (
  site_id         uuid NOT NULL,
  subscription_id text NOT NULL,
  started_at      timestamptz NOT NULL,
  PRIMARY KEY (site_id, subscription_id)
);
CREATE INDEX analytics_subscription_starts_time_idx ON analytics_subscription_starts (site_id, started_at);

CREATE FUNCTION analytics_mark_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Sorted, so concurrent batches take the same keys in the same order instead of deadlocking.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO analytics_dirty (site_id, hour)
    SELECT DISTINCT site_id, date_trunc('hour', occurred_at, 'UTC') FROM new_rows ORDER BY 1, 2
    ON CONFLICT DO NOTHING;
  ELSE
    INSERT INTO analytics_dirty (site_id, hour)
    SELECT site_id, date_trunc('hour', occurred_at, 'UTC') FROM new_rows
    UNION
    SELECT site_id, date_trunc('hour', occurred_at, 'UTC') FROM old_rows
    ORDER BY 1, 2
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['customers', 'events', 'orders', 'payments', 'refunds', 'subscriptions',
                           'costs', 'campaigns', 'expenses', 'observations', 'summaries'] LOOP
    EXECUTE format('CREATE TRIGGER analytics_dirty_ins AFTER INSERT ON ingest_%s REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_mark_dirty()', t);
    EXECUTE format('CREATE TRIGGER analytics_dirty_upd AFTER UPDATE ON ingest_%s REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_mark_dirty()', t);
  END LOOP;
END $$;

CREATE FUNCTION analytics_note_subscription_start() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_subscription_starts (site_id, subscription_id, started_at)
  SELECT site_id, subscription_id, period_start FROM new_rows ORDER BY 1, 2
  ON CONFLICT (site_id, subscription_id) DO UPDATE SET started_at = least(analytics_subscription_starts.started_at, EXCLUDED.started_at);
  RETURN NULL;
END $$;
CREATE TRIGGER analytics_subscription_start_ins AFTER INSERT ON ingest_subscriptions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_note_subscription_start();
CREATE TRIGGER analytics_subscription_start_upd AFTER UPDATE ON ingest_subscriptions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_note_subscription_start();

-- What the rollup looks up in raw records beyond a time range:
-- the earlier visit events of a session (is this visit the session's start?),
CREATE INDEX ingest_events_session_idx ON ingest_events (site_id, session_id, occurred_at, event_id)
  WHERE event_type = 'visit' AND session_id IS NOT NULL;
-- a user's first event carrying a channel or campaign (first-touch attribution of money),
CREATE INDEX ingest_events_touch_idx ON ingest_events (site_id, external_user_id, occurred_at, event_id)
  WHERE channel IS NOT NULL OR campaign_id IS NOT NULL;
-- a user's orders and payments (whose attribution moves with the first touch),
CREATE INDEX ingest_payments_user_idx ON ingest_payments (site_id, external_user_id) WHERE external_user_id IS NOT NULL;
CREATE INDEX ingest_orders_user_idx ON ingest_orders (site_id, external_user_id) WHERE external_user_id IS NOT NULL;
-- and, at query time, summaries by period and subscriptions by state.
CREATE INDEX ingest_summaries_period_idx ON ingest_summaries (site_id, period_start);
CREATE INDEX ingest_subscriptions_state_idx ON ingest_subscriptions (site_id, status, period_end);

-- The channel and campaign of a user's first event that carries either: the source money of the
-- acquisition view is attributed to (first touch). Empty strings when the user has none.
CREATE FUNCTION analytics_first_touch(p_site uuid, p_user text) RETURNS TABLE (channel text, campaign_id text)
LANGUAGE sql STABLE AS $$
  SELECT coalesce(t.channel, ''), coalesce(t.campaign_id, '')
  FROM ingest_events t
  WHERE t.site_id = p_site AND t.external_user_id = p_user AND (t.channel IS NOT NULL OR t.campaign_id IS NOT NULL)
  ORDER BY t.occurred_at, t.event_id
  LIMIT 1
$$;
