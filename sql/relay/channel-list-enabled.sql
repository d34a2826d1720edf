-- Every enabled channel, with what routing needs. Takes nothing.
SELECT id, name, base_url, api_key, models, protocols, priority, weight, created_at
FROM relay_channels
WHERE enabled
ORDER BY priority DESC, created_at
