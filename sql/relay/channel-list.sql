-- Every channel, enabled or not, without its upstream key. Takes nothing.
SELECT id, name, base_url, models, protocols, priority, weight, enabled, created_at
FROM relay_channels
ORDER BY priority DESC, created_at
