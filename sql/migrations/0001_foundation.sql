-- Foundation: accounts, browser/CLI sessions, submitted sites and their scoped credentials.
-- Secrets (session tokens, credential secrets) are stored only as SHA-256 digests.

CREATE TABLE accounts (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email         text NOT NULL,
  name          text,
  password_hash text,
  admin         boolean NOT NULL DEFAULT false,
  created_at    timestamptz NOT NULL DEFAULT now()
);
-- Emails compare case-insensitively: Ann@x.com and ann@x.com are one account.
CREATE UNIQUE INDEX accounts_email_key ON accounts (lower(email));

CREATE TABLE sessions (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id  uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  token_hash  bytea NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX sessions_account_idx ON sessions (account_id);

CREATE TYPE site_category AS ENUM (
  'writing', 'chat', 'image', 'video', 'audio', 'developer', 'automation',
  'search', 'api', 'education', 'productivity', 'other');
CREATE TYPE site_review_status AS ENUM ('pending_review', 'approved', 'rejected');

CREATE TABLE sites (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id     uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name           text NOT NULL,
  website_url    text NOT NULL,
  description    text NOT NULL,
  category       site_category NOT NULL,
  public_metrics boolean NOT NULL DEFAULT false,
  review_status  site_review_status NOT NULL DEFAULT 'pending_review',
  reviewed_at    timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sites_account_idx ON sites (account_id, created_at);

CREATE TYPE credential_kind AS ENUM ('read', 'ingest');

CREATE TABLE credentials (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  site_id      uuid NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  created_by   uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name         text NOT NULL,
  kind         credential_kind NOT NULL,
  scopes       text[] NOT NULL,
  prefix       text NOT NULL,
  secret_hash  bytea NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  revoked_at   timestamptz
);
CREATE INDEX credentials_site_idx ON credentials (site_id, created_at);
