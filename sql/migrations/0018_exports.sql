-- Exports (issue #20): a file of one record family or one analytics view, made by a worker
-- job and downloaded from the front door. The file lives in PostgreSQL (export_chunks), not on
-- a worker's disk, so any front door of a cluster can serve what any worker wrote.
CREATE TABLE exports (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  site_id       uuid NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  -- What was asked, as validated: {kind, resource|view, format, from, to, tz, interval}.
  request       jsonb NOT NULL,
  status        text NOT NULL DEFAULT 'queued'
                CHECK (status IN ('queued', 'running', 'completed', 'failed', 'expired')),
  rows_total    bigint,
  rows_done     bigint NOT NULL DEFAULT 0,
  bytes         bigint NOT NULL DEFAULT 0,
  -- An analytics export's coverage, currencies and freshness (CSV has no room for them).
  meta          jsonb,
  error         jsonb,
  created_at    timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz,
  completed_at  timestamptz,
  expires_at    timestamptz
);
CREATE INDEX exports_site_recent_idx ON exports (site_id, created_at DESC);
CREATE INDEX exports_expiry_idx ON exports (expires_at) WHERE status = 'completed';

-- The file, in order, about 1 MiB a chunk: the download reads one at a time.
CREATE TABLE export_chunks (
  export_id  uuid NOT NULL REFERENCES exports(id) ON DELETE CASCADE,
  seq        int NOT NULL,
  data       bytea NOT NULL,
  PRIMARY KEY (export_id, seq)
);
