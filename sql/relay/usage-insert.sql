-- Stores a batch of metered calls (${columns}, ${values}: pg-promise's helpers) and adds the
-- ones it really stored to relay_spend_hours in the same statement: a retried batch (ids
-- already stored) adds nothing, and the rollup never drifts from the calls. Rows are upserted
-- in key order so concurrent batches lock them in one order (no deadlock).
WITH stored AS (
  INSERT INTO relay_usage (${columns:raw}) VALUES ${values:raw}
  ON CONFLICT (id) DO NOTHING
  RETURNING site_id, at, customer, currency, cost_nanos, unpriced,
            input_tokens, output_tokens, cached_tokens, reasoning_tokens
)
INSERT INTO relay_spend_hours AS h
SELECT site_id, date_trunc('hour', at, 'UTC'), customer, currency,
       count(*),
       count(*) FILTER (WHERE unpriced OR (cost_nanos IS NULL AND currency IS NOT NULL)),
       coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0),
       coalesce(sum(cached_tokens), 0), coalesce(sum(reasoning_tokens), 0),
       coalesce(sum(cost_nanos), 0)
FROM stored
WHERE site_id IS NOT NULL
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4
ON CONFLICT (site_id, hour, (coalesce(customer, '')), (coalesce(currency, ''))) DO UPDATE SET
  calls = h.calls + excluded.calls,
  unpriced_calls = h.unpriced_calls + excluded.unpriced_calls,
  input_tokens = h.input_tokens + excluded.input_tokens,
  output_tokens = h.output_tokens + excluded.output_tokens,
  cached_tokens = h.cached_tokens + excluded.cached_tokens,
  reasoning_tokens = h.reasoning_tokens + excluded.reasoning_tokens,
  cost_nanos = h.cost_nanos + excluded.cost_nanos
