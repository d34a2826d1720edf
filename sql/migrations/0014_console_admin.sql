-- The console's admin pages: disabled accounts and the one-time first-run setup link.

-- A disabled account can no longer log in; its sessions and its sites' credentials stop working.
ALTER TABLE accounts ADD COLUMN disabled_at timestamptz;

-- Digests of setup tokens printed by `radar up` while no admin account exists. Using one
-- creates the platform admin and deletes them all.
CREATE TABLE setup_tokens (
  token_hash  bytea PRIMARY KEY,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);

-- The console lists a site's recent batches newest first.
CREATE INDEX ingest_batches_recent_idx ON ingest_batches (site_id, received_at DESC);
