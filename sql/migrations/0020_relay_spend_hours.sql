-- A site's model spend through the relay per customer, UTC hour and currency, so the
-- unit-economics view reads one row per (customer, hour, currency) of its window instead of
-- every call. Kept by the statement that stores metered calls (sql/relay/usage-insert.sql): only
-- rows it really inserted are added, so a retried batch is not counted twice. customer and
-- currency are null as in relay_usage (no customer named; an unpriced model or a refused call).
-- unpriced_calls: calls without a cost (an unpriced model, or no tokens reported).
CREATE TABLE relay_spend_hours (
  site_id          uuid NOT NULL,
  hour             timestamptz NOT NULL,
  customer         text,
  currency         text,
  calls            bigint NOT NULL,
  unpriced_calls   bigint NOT NULL,
  input_tokens     bigint NOT NULL,
  output_tokens    bigint NOT NULL,
  cached_tokens    bigint NOT NULL,
  reasoning_tokens bigint NOT NULL,
  cost_nanos       bigint NOT NULL
);
-- The upsert's conflict target, and a window of a site read as one range. One row per key, a
-- null customer or currency included (coalesced to '', which neither can be: a customer matches
-- the identifier pattern, a currency is three letters); NULLS NOT DISTINCT would say the same
-- but needs PostgreSQL 15, and Radar runs on 13.
CREATE UNIQUE INDEX relay_spend_hours_key
  ON relay_spend_hours (site_id, hour, (coalesce(customer, '')), (coalesce(currency, '')));

-- Calls metered before this migration.
INSERT INTO relay_spend_hours
SELECT site_id, date_trunc('hour', at, 'UTC'), customer, currency,
       count(*),
       count(*) FILTER (WHERE unpriced OR (cost_nanos IS NULL AND currency IS NOT NULL)),
       coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0),
       coalesce(sum(cached_tokens), 0), coalesce(sum(reasoning_tokens), 0),
       coalesce(sum(cost_nanos), 0)
FROM relay_usage
WHERE site_id IS NOT NULL
GROUP BY 1, 2, 3, 4;
