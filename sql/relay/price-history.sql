-- Every price of one model (or of all when ${model} is null), newest first.
SELECT model, effective_at, currency, input_nanos, cached_input_nanos, output_nanos
FROM relay_prices
WHERE ${model}::text IS NULL OR model = ${model}
ORDER BY model, effective_at DESC
