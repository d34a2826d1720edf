-- A change could be left out of the rollups for good (found by the scale-out test): an ingest
-- transaction whose hour was already marked dirty did nothing (ON CONFLICT DO NOTHING takes no
-- lock), a rollup then drained that mark and read the raw rows before the ingest transaction
-- committed, and nothing marked the hour again.
--
-- Now every ingest transaction adds marks of its own. A rollup deletes only the marks committed
-- when its DELETE starts, and its recompute reads the raw rows later, so it sees every change
-- whose mark it took; a mark committed after that stays for the next rollup.
ALTER TABLE analytics_dirty DROP CONSTRAINT analytics_dirty_pkey;
CREATE INDEX analytics_dirty_site_hour_idx ON analytics_dirty (site_id, hour);

CREATE OR REPLACE FUNCTION analytics_mark_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO analytics_dirty (site_id, hour)
    SELECT DISTINCT site_id, date_trunc('hour', occurred_at, 'UTC') FROM new_rows;
  ELSE
    INSERT INTO analytics_dirty (site_id, hour)
    SELECT site_id, date_trunc('hour', occurred_at, 'UTC') FROM new_rows
    UNION
    SELECT site_id, date_trunc('hour', occurred_at, 'UTC') FROM old_rows;
  END IF;
  RETURN NULL;
END $$;
