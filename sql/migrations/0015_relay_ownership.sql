-- The relay as a product: groups (named model sets with default limits) that every account
-- belongs to, keys owned by accounts with their own limits, budget and expiry, prices per
-- model with the date they take effect, and the cost of each metered call.

CREATE TABLE relay_groups (
  name        text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9_.-]{1,64}$'),
  -- Model ids the group's keys may call; '{*}' means every model.
  models      text[] NOT NULL CHECK (cardinality(models) > 0),
  -- Defaults for keys that set none; null means no limit from the group.
  rpm         integer CHECK (rpm > 0),
  tpm         integer CHECK (tpm > 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO relay_groups (name, models) VALUES ('default', '{*}');
-- Groups that keys named before groups existed keep every model, as they had.
INSERT INTO relay_groups (name, models)
SELECT DISTINCT key_group, '{*}'::text[] FROM relay_keys WHERE key_group <> 'default'
ON CONFLICT DO NOTHING;

ALTER TABLE accounts ADD COLUMN relay_group text NOT NULL DEFAULT 'default'
  REFERENCES relay_groups(name) ON UPDATE CASCADE;

-- A key belongs to an account (and then to the account's group), or, made with the CLI
-- without an account, to the group named on it.
ALTER TABLE relay_keys
  ADD COLUMN account_id uuid REFERENCES accounts(id) ON DELETE CASCADE,
  ALTER COLUMN key_group DROP NOT NULL,
  ALTER COLUMN key_group DROP DEFAULT,
  ADD CONSTRAINT relay_keys_group_fk FOREIGN KEY (key_group) REFERENCES relay_groups(name) ON UPDATE CASCADE,
  ADD CONSTRAINT relay_keys_owner_check CHECK ((account_id IS NULL) = (key_group IS NOT NULL)),
  ADD COLUMN deleted_at timestamptz;
CREATE INDEX relay_keys_account_idx ON relay_keys (account_id, created_at) WHERE deleted_at IS NULL;

-- Prices per model per million tokens, in nanos (10^-9 of the currency's unit, so a call
-- costing $0.00001 is 10,000 nanos). A price applies from `effective_at` until the model's
-- next one; each call's cost is computed when it is made and stored with it, so a new price
-- never rewrites past costs.
CREATE TABLE relay_prices (
  model               text NOT NULL,
  effective_at        timestamptz NOT NULL,
  currency            text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  input_nanos         bigint NOT NULL CHECK (input_nanos >= 0),
  cached_input_nanos  bigint NOT NULL CHECK (cached_input_nanos >= 0),
  output_nanos        bigint NOT NULL CHECK (output_nanos >= 0),
  created_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (model, effective_at)
);

-- Whether a key with a budget may call the model while it has no price.
ALTER TABLE relay_models ADD COLUMN allow_unpriced boolean NOT NULL DEFAULT false;

-- A call's cost: `unpriced` when its model had no price (cost and currency null, never 0);
-- cost null on a priced call means the provider reported no tokens.
ALTER TABLE relay_usage
  ADD COLUMN cost_nanos bigint,
  ADD COLUMN currency text,
  ADD COLUMN unpriced boolean NOT NULL DEFAULT false;

-- Per-key settings. Limits left null fall back to the group's, then to the server default.
-- A budget is an amount of nanos in one currency per period (a UTC day, a UTC month, or the
-- key's whole life); the relay enforces it in Redis and stores what each call cost above.
ALTER TABLE relay_keys
  ADD COLUMN rpm integer CHECK (rpm > 0),
  ADD COLUMN tpm integer CHECK (tpm > 0),
  ADD COLUMN budget_nanos bigint CHECK (budget_nanos > 0),
  ADD COLUMN budget_currency text CHECK (budget_currency ~ '^[A-Z]{3}$'),
  ADD COLUMN budget_period text CHECK (budget_period IN ('day', 'month', 'total')),
  ADD CONSTRAINT relay_keys_budget_check
    CHECK ((budget_nanos IS NULL) = (budget_currency IS NULL) AND (budget_nanos IS NULL) = (budget_period IS NULL)),
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN site_id uuid REFERENCES sites(id) ON DELETE SET NULL;
