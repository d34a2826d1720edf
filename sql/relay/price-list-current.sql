-- The price in force for each model now, and every price that takes effect later, so that
-- a cached list still picks the right price at the moment of each call. Takes nothing.
SELECT model, effective_at, currency, input_nanos, cached_input_nanos, output_nanos
FROM relay_prices p
WHERE effective_at > now()
   OR effective_at = (SELECT max(effective_at) FROM relay_prices q WHERE q.model = p.model AND q.effective_at <= now())
ORDER BY model, effective_at DESC
