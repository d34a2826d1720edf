-- Model relay: upstream channels, per-model settings, relay API keys and the usage meter.
-- Relay keys are stored only as SHA-256 digests; a channel's upstream key is kept in clear
-- because the relay must present it to the provider.

CREATE TABLE relay_channels (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name        text NOT NULL UNIQUE,
  -- The provider's API base including its version, e.g. https://api.openai.com/v1.
  base_url    text NOT NULL,
  api_key     text,
  models      text[] NOT NULL CHECK (cardinality(models) > 0),
  protocols   text[] NOT NULL CHECK (cardinality(protocols) > 0
                AND protocols <@ ARRAY['responses', 'chat', 'embeddings']),
  -- Higher priority is tried first; weight spreads load among channels of equal priority.
  priority    integer NOT NULL DEFAULT 0,
  weight      integer NOT NULL DEFAULT 1 CHECK (weight >= 1),
  enabled     boolean NOT NULL DEFAULT true,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Settings of a model id; a model served by a channel exists without a row here.
CREATE TABLE relay_models (
  id          text PRIMARY KEY,
  efforts     text[] NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('chat', 'embedding')),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE relay_keys (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name        text NOT NULL,
  key_hash    bytea NOT NULL UNIQUE,
  -- First characters of the key, to recognise it in listings without revealing it.
  prefix      text NOT NULL,
  -- Model ids the key may call; '{*}' means every model.
  models      text[] NOT NULL CHECK (cardinality(models) > 0),
  key_group   text NOT NULL DEFAULT 'default',
  created_at  timestamptz NOT NULL DEFAULT now(),
  disabled_at timestamptz
);

-- One row per relayed call. `id` is chosen by the front door so a retried insert is a no-op.
CREATE TABLE relay_usage (
  id            uuid PRIMARY KEY,
  at            timestamptz NOT NULL,
  request_id    text NOT NULL,
  key_id        uuid NOT NULL REFERENCES relay_keys(id),
  model         text NOT NULL,
  channel_id    uuid REFERENCES relay_channels(id) ON DELETE SET NULL,
  endpoint      text NOT NULL,
  stream        boolean NOT NULL,
  status        integer NOT NULL,
  input_tokens  integer,
  output_tokens integer,
  cached_tokens integer,
  reasoning_tokens integer,
  ttfb_ms       integer,
  duration_ms   integer NOT NULL
);
CREATE INDEX relay_usage_key_at_idx ON relay_usage (key_id, at);
CREATE INDEX relay_usage_at_idx ON relay_usage (at);
