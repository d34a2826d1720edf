-- Ingestion (CONTRACT §3): one table per record family holding the latest revision of each
-- record, and ingest_batches holding each batch's receipt (and its records until applied).
--
-- Record tables: keyed (site_id, <record id>); one row per record, the latest revision.
-- Typed columns carry what analytics filters and groups on; `record` is the record exactly as
-- ingested (defaults applied, timestamps in UTC) and is what the read API returns.
-- `content_digest` is SHA-256 of the record's canonical JSON: it tells an identical re-send
-- (`unchanged`) from a revision_conflict. `received_at`/`batch_id` name the batch that wrote
-- this revision. No foreign key to sites here: a per-row RI trigger would cost every insert,
-- and records only arrive through ingest_batches, which has one.

CREATE TABLE ingest_batches (
  site_id      uuid NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  resource     text NOT NULL,
  batch_id     text NOT NULL,
  -- SHA-256 of the canonical JSON of the batch's records.
  digest       bytea NOT NULL,
  status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'completed', 'rejected')),
  received     integer NOT NULL,
  applied      integer NOT NULL DEFAULT 0,
  unchanged    integer NOT NULL DEFAULT 0,
  -- For rejected batches: {code, detail, errors} of the 409/422 answer.
  problem      jsonb,
  -- While queued: the records (canonical JSON array), so an accepted batch survives the loss
  -- of Redis; cleared once the batch is completed or rejected. lz4 rather than the default
  -- pglz: several times cheaper on the CPU for this short-lived value.
  payload      text COMPRESSION lz4,
  received_at  timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  PRIMARY KEY (site_id, resource, batch_id)
);
-- The sweeper's scan for batches whose job may have been lost.
CREATE INDEX ingest_batches_queued_idx ON ingest_batches (received_at) WHERE status = 'queued';
-- freshness.last_ingested_at of the read API.
CREATE INDEX ingest_batches_completed_idx ON ingest_batches (site_id, resource, completed_at) WHERE status = 'completed';

CREATE TABLE ingest_customers (
  site_id        uuid NOT NULL,
  customer_id    text NOT NULL,
  revision       integer NOT NULL,
  source         text NOT NULL,
  occurred_at    timestamptz NOT NULL,
  status         text NOT NULL,
  created_at     timestamptz NOT NULL,
  record         jsonb NOT NULL,
  content_digest bytea NOT NULL,
  batch_id       text NOT NULL,
  received_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, customer_id)
);
CREATE INDEX ingest_customers_time_idx ON ingest_customers (site_id, occurred_at, customer_id);

-- channel, plan_id, quantity: copied from properties.
CREATE TABLE ingest_events (
  site_id        uuid NOT NULL,
  event_id       text NOT NULL,
  revision       integer NOT NULL,
  source         text NOT NULL,
  occurred_at    timestamptz NOT NULL,
  event_type     text NOT NULL,
  external_user_id text,
  campaign_id    text,
  session_id     text,
  activation_definition text,
  channel        text,
  plan_id        text,
  quantity       integer,
  record         jsonb NOT NULL,
  content_digest bytea NOT NULL,
  batch_id       text NOT NULL,
  received_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, event_id)
);
CREATE INDEX ingest_events_time_idx ON ingest_events (site_id, occurred_at, event_id);

CREATE TABLE ingest_orders (
  site_id        uuid NOT NULL,
  order_id       text NOT NULL,
  revision       integer NOT NULL,
  source         text NOT NULL,
  occurred_at    timestamptz NOT NULL,
  external_user_id text,
  amount_minor   bigint NOT NULL,
  currency       text NOT NULL,
  status         text NOT NULL,
  plan_id        text,
  record         jsonb NOT NULL,
  content_digest bytea NOT NULL,
  batch_id       text NOT NULL,
  received_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, order_id)
);
CREATE INDEX ingest_orders_time_idx ON ingest_orders (site_id, occurred_at, order_id);

CREATE TABLE ingest_payments (
  site_id        uuid NOT NULL,
  payment_id     text NOT NULL,
  revision       integer NOT NULL,
  source         text NOT NULL,
  occurred_at    timestamptz NOT NULL,
  order_id       text NOT NULL,
  external_user_id text,
  amount_minor   bigint NOT NULL,
  currency       text NOT NULL,
  status         text NOT NULL,
  record         jsonb NOT NULL,
  content_digest bytea NOT NULL,
  batch_id       text NOT NULL,
  received_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, payment_id)
);
CREATE INDEX ingest_payments_time_idx ON ingest_payments (site_id, occurred_at, payment_id);

CREATE TABLE ingest_refunds (
  site_id        uuid NOT NULL,
  refund_id      text NOT NULL,
  revision       integer NOT NULL,
  source         text NOT NULL,
  occurred_at    timestamptz NOT NULL,
  payment_id     text NOT NULL,
  amount_minor   bigint NOT NULL,
  currency       text NOT NULL,
  status         text NOT NULL,
  record         jsonb NOT NULL,
  content_digest bytea NOT NULL,
  batch_id       text NOT NULL,
  received_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, refund_id)
);
CREATE INDEX ingest_refunds_time_idx ON ingest_refunds (site_id, occurred_at, refund_id);

CREATE TABLE ingest_subscriptions (
  site_id        uuid NOT NULL,
  subscription_id text NOT NULL,
  revision       integer NOT NULL,
  source         text NOT NULL,
  occurred_at    timestamptz NOT NULL,
  external_user_id text NOT NULL,
  plan_id        text NOT NULL,
  status         text NOT NULL,
  period_start   timestamptz NOT NULL,
  period_end     timestamptz NOT NULL,
  amount_minor   bigint NOT NULL,
  currency       text NOT NULL,
  record         jsonb NOT NULL,
  content_digest bytea NOT NULL,
  batch_id       text NOT NULL,
  received_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, subscription_id)
);
CREATE INDEX ingest_subscriptions_time_idx ON ingest_subscriptions (site_id, occurred_at, subscription_id);

CREATE TABLE ingest_costs (
  site_id        uuid NOT NULL,
  cost_id        text NOT NULL,
  revision       integer NOT NULL,
  source         text NOT NULL,
  occurred_at    timestamptz NOT NULL,
  amount_minor   bigint NOT NULL,
  currency       text NOT NULL,
  period_start   timestamptz NOT NULL,
  period_end     timestamptz NOT NULL,
  category       text NOT NULL,
  event_id       text,
  record         jsonb NOT NULL,
  content_digest bytea NOT NULL,
  batch_id       text NOT NULL,
  received_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, cost_id)
);
CREATE INDEX ingest_costs_time_idx ON ingest_costs (site_id, occurred_at, cost_id);

CREATE TABLE ingest_campaigns (
  site_id        uuid NOT NULL,
  campaign_id    text NOT NULL,
  revision       integer NOT NULL,
  source         text NOT NULL,
  occurred_at    timestamptz NOT NULL,
  name           text NOT NULL,
  channel        text NOT NULL,
  content_ref    text,
  status         text NOT NULL,
  starts_at      timestamptz NOT NULL,
  ends_at        timestamptz,
  record         jsonb NOT NULL,
  content_digest bytea NOT NULL,
  batch_id       text NOT NULL,
  received_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, campaign_id)
);
CREATE INDEX ingest_campaigns_time_idx ON ingest_campaigns (site_id, occurred_at, campaign_id);

CREATE TABLE ingest_expenses (
  site_id        uuid NOT NULL,
  expense_id     text NOT NULL,
  revision       integer NOT NULL,
  source         text NOT NULL,
  occurred_at    timestamptz NOT NULL,
  campaign_id    text NOT NULL,
  amount_minor   bigint NOT NULL,
  currency       text NOT NULL,
  period_start   timestamptz NOT NULL,
  period_end     timestamptz NOT NULL,
  cost_scope     text NOT NULL,
  record         jsonb NOT NULL,
  content_digest bytea NOT NULL,
  batch_id       text NOT NULL,
  received_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, expense_id)
);
CREATE INDEX ingest_expenses_time_idx ON ingest_expenses (site_id, occurred_at, expense_id);

CREATE TABLE ingest_observations (
  site_id        uuid NOT NULL,
  observation_id text NOT NULL,
  revision       integer NOT NULL,
  source         text NOT NULL,
  occurred_at    timestamptz NOT NULL,
  target_ref     text NOT NULL,
  target_type    text NOT NULL,
  status         text NOT NULL,
  latency_ms     integer,
  region         text,
  record         jsonb NOT NULL,
  content_digest bytea NOT NULL,
  batch_id       text NOT NULL,
  received_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, observation_id)
);
CREATE INDEX ingest_observations_time_idx ON ingest_observations (site_id, occurred_at, observation_id);

-- channel, campaign_id: copied from dimensions.
CREATE TABLE ingest_summaries (
  site_id        uuid NOT NULL,
  summary_id     text NOT NULL,
  revision       integer NOT NULL,
  source         text NOT NULL,
  occurred_at    timestamptz NOT NULL,
  metric         text NOT NULL,
  period_start   timestamptz NOT NULL,
  period_end     timestamptz NOT NULL,
  value          numeric NOT NULL,
  unit           text NOT NULL,
  currency       text,
  definition_version text NOT NULL,
  channel        text,
  campaign_id    text,
  record         jsonb NOT NULL,
  content_digest bytea NOT NULL,
  batch_id       text NOT NULL,
  received_at    timestamptz NOT NULL,
  PRIMARY KEY (site_id, summary_id)
);
CREATE INDEX ingest_summaries_time_idx ON ingest_summaries (site_id, occurred_at, summary_id);
