-- Creates a relay key. Takes ${name}, ${keyHash}, ${prefix}, ${models}, ${group}; returns its id.
INSERT INTO relay_keys (name, key_hash, prefix, models, key_group)
VALUES (${name}, ${keyHash}, ${prefix}, ${models}::text[], ${group})
RETURNING id
