-- A site's model calls through the relay in [${from}, ${to}) per customer (the request's
-- customer, null when it named none) and currency (null for an unpriced model). Takes
-- ${siteId}, ${from}, ${to}. unpriced: calls without a cost (an unpriced model, or no tokens
-- reported), never counted as 0; a call refused before it named a model cost nothing. Read by
-- relay_usage_site_at_idx alone.
SELECT u.customer, u.currency,
       count(*)::int AS calls,
       count(*) FILTER (WHERE u.unpriced OR (u.cost_nanos IS NULL AND u.currency IS NOT NULL))::int AS unpriced,
       coalesce(sum(u.cost_nanos), 0)::bigint AS nanos,
       coalesce(sum(u.input_tokens), 0)::bigint AS input_tokens,
       coalesce(sum(u.output_tokens), 0)::bigint AS output_tokens
FROM relay_usage u
WHERE u.site_id = ${siteId} AND u.at >= ${from}::timestamptz AND u.at < ${to}::timestamptz
GROUP BY u.customer, u.currency
