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
