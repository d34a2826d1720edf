-- What a key's calls cost in one currency since an instant: the starting point of a budget
-- period whose running total Redis no longer holds. Takes ${keyId}, ${currency}, ${since}.
SELECT coalesce(sum(cost_nanos), 0)::bigint AS nanos
FROM relay_usage
WHERE key_id = ${keyId} AND currency = ${currency} AND at >= ${since}
