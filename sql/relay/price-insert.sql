-- Adds a model's price from ${effectiveAt} on (now when null). Takes ${model}, ${currency},
-- ${inputNanos}, ${cachedInputNanos}, ${outputNanos}, ${effectiveAt}; returns the row.
INSERT INTO relay_prices (model, effective_at, currency, input_nanos, cached_input_nanos, output_nanos)
VALUES (${model}, coalesce(${effectiveAt}::timestamptz, now()), ${currency}, ${inputNanos}, ${cachedInputNanos}, ${outputNanos})
RETURNING model, effective_at, currency, input_nanos, cached_input_nanos, output_nanos
