-- Creates a relay key. Takes ${name}, ${keyHash}, ${prefix}, ${models}, and either
-- ${accountId} (an account's key; its group is the account's) or ${group} (a CLI key without
-- an account); returns the key row.
INSERT INTO relay_keys (name, key_hash, prefix, models, account_id, key_group)
VALUES (${name}, ${keyHash}, ${prefix}, ${models}::text[], ${accountId}, ${group})
RETURNING id, name, prefix, models, created_at, disabled_at
