-- A site's model calls through the relay per UTC hour and currency, whoever the customer, so
-- every view's relay costs and coverage.relay read one row per hour and currency of the window
-- instead of every call (customer_economics, migration 0021, has a row per customer: about one
-- per call on a site with many customers). Kept by a statement
-- trigger on relay_usage from the rows a statement really inserted (a retried batch of calls
-- inserts none), in the transaction that stores them.
-- currency is null as in relay_usage (an unpriced model or a refused call); unpriced_calls:
-- calls without a cost; last_at: the hour's latest call (coverage.relay.last_call_at).
CREATE TABLE relay_site_hours (
  site_id        uuid NOT NULL,
  hour           timestamptz NOT NULL,
  currency       text,
  calls          bigint NOT NULL,
  unpriced_calls bigint NOT NULL,
  cost_nanos     bigint NOT NULL,
  last_at        timestamptz NOT NULL
);
-- The upsert's conflict target (a null currency coalesced to '': PostgreSQL 13 has no NULLS NOT DISTINCT),
-- and a window of a site read as one range.
CREATE UNIQUE INDEX relay_site_hours_key ON relay_site_hours (site_id, hour, (coalesce(currency, '')));

-- Rows are upserted in key order so concurrent statements lock them in one order (no deadlock).
CREATE FUNCTION relay_site_hours_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO relay_site_hours AS s
  SELECT site_id, date_trunc('hour', at, 'UTC'), currency,
         count(*),
         count(*) FILTER (WHERE unpriced OR (cost_nanos IS NULL AND currency IS NOT NULL)),
         coalesce(sum(cost_nanos), 0),
         max(at)
  FROM new_rows
  WHERE site_id IS NOT NULL
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT (site_id, hour, (coalesce(currency, ''))) DO UPDATE SET
    calls = s.calls + excluded.calls,
    unpriced_calls = s.unpriced_calls + excluded.unpriced_calls,
    cost_nanos = s.cost_nanos + excluded.cost_nanos,
    last_at = greatest(s.last_at, excluded.last_at);
  RETURN NULL;
END $$;
CREATE TRIGGER relay_site_hours_ins AFTER INSERT ON relay_usage
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION relay_site_hours_add();

-- Calls metered before this migration.
INSERT INTO relay_site_hours
SELECT site_id, date_trunc('hour', at, 'UTC'), currency,
       count(*),
       count(*) FILTER (WHERE unpriced OR (cost_nanos IS NULL AND currency IS NOT NULL)),
       coalesce(sum(cost_nanos), 0),
       max(at)
FROM relay_usage
WHERE site_id IS NOT NULL
GROUP BY 1, 2, 3;
