-- How often PostgreSQL refused to store a queued batch's data (SQLSTATE classes 22 and 23:
-- the same records fail the same way every time). At the limit in src/ingest/apply.ts the
-- batch is rejected as batch_unprocessable instead of being retried for ever. Connection
-- losses and other transient faults are not counted.
ALTER TABLE ingest_batches ADD COLUMN apply_failures smallint NOT NULL DEFAULT 0;
