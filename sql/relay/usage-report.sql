-- Usage and spend per local day, key and model, and per local day over all of them (the
-- grouping set with key_id and model NULL). Takes ${from}, ${to} (instants), ${tz} (IANA),
-- ${accountId} (NULL: every key, for the admin), ${keyId}, ${model} (NULL: all).
-- Errors are answers of 400 and above except 499 (the client went away: counted apart).
-- Cost is summed per currency; calls to unpriced models are counted apart, never as 0.
WITH calls AS (
  SELECT to_char(u.at AT TIME ZONE ${tz}, 'YYYY-MM-DD') AS day, u.key_id, u.model, u.status,
         u.input_tokens, u.cached_tokens, u.output_tokens, u.reasoning_tokens,
         u.cost_nanos, u.currency, u.unpriced, u.ttfb_ms, u.duration_ms
  FROM relay_usage u
  JOIN relay_keys k ON k.id = u.key_id
  WHERE u.at >= ${from} AND u.at < ${to}
    AND (${accountId}::uuid IS NULL OR k.account_id = ${accountId})
    AND (${keyId}::uuid IS NULL OR u.key_id = ${keyId})
    AND (${model}::text IS NULL OR u.model = ${model})
),
figures AS (
  SELECT day, key_id, model,
         count(*)::int AS calls,
         (count(*) FILTER (WHERE status >= 400 AND status <> 499))::int AS errors,
         (count(*) FILTER (WHERE status = 499))::int AS cancelled,
         (count(*) FILTER (WHERE unpriced))::int AS unpriced_calls,
         coalesce(sum(input_tokens), 0)::bigint AS input_tokens,
         coalesce(sum(cached_tokens), 0)::bigint AS cached_tokens,
         coalesce(sum(output_tokens), 0)::bigint AS output_tokens,
         coalesce(sum(reasoning_tokens), 0)::bigint AS reasoning_tokens,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY ttfb_ms) AS ttfb_p50,
         percentile_cont(0.95) WITHIN GROUP (ORDER BY ttfb_ms) AS ttfb_p95,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS duration_p50,
         percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS duration_p95
  FROM calls
  GROUP BY GROUPING SETS ((day, key_id, model), (day))
),
costs AS (
  SELECT day, key_id, model, jsonb_object_agg(currency, nanos) AS cost
  FROM (
    SELECT day, key_id, model, currency, sum(cost_nanos)::text AS nanos
    FROM calls
    WHERE currency IS NOT NULL AND cost_nanos IS NOT NULL
    GROUP BY GROUPING SETS ((day, key_id, model, currency), (day, currency))
  ) per_currency
  GROUP BY day, key_id, model
)
SELECT f.*, k.name AS key_name, coalesce(c.cost, '{}'::jsonb) AS cost
FROM figures f
LEFT JOIN relay_keys k ON k.id = f.key_id
LEFT JOIN costs c ON c.day = f.day
  AND c.key_id IS NOT DISTINCT FROM f.key_id AND c.model IS NOT DISTINCT FROM f.model
ORDER BY f.day, f.key_id NULLS FIRST, f.model
