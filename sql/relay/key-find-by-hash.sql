-- The key with this digest, disabled or not. Takes ${keyHash}.
SELECT id, key_hash, models, key_group, disabled_at
FROM relay_keys
WHERE key_hash = ${keyHash}
