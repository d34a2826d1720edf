-- The pending analytics arrays compressed with lz4 instead of the default pglz (issue 21).
-- Each ingest statement writes one row per pending table holding its whole delta: for a
-- 500-event batch, arrays of tens of kilobytes, which PostgreSQL compresses as it stores them.
-- pglz took about 5% of the CPU of applying such batches (perf, one backend applying the
-- bench's batches); lz4 about 0.5%, and it is read back (views, folds) faster too. Rows
-- already stored keep their pglz values, which read as before.
ALTER TABLE analytics_pending_counts ALTER COLUMN counts SET COMPRESSION lz4;
ALTER TABLE analytics_pending_users
  ALTER COLUMN buckets SET COMPRESSION lz4,
  ALTER COLUMN kinds SET COMPRESSION lz4,
  ALTER COLUMN users SET COMPRESSION lz4;
ALTER TABLE analytics_pending_keys
  ALTER COLUMN keys SET COMPRESSION lz4,
  ALTER COLUMN ats SET COMPRESSION lz4;
