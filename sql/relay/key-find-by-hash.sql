-- The key with this digest, disabled or not, with the group it answers to: its account's
-- group, or the group named on a key without an account. Takes ${keyHash}.
SELECT k.id, k.key_hash, k.models, k.account_id, k.disabled_at, k.deleted_at, k.expires_at,
       k.rpm, k.tpm, k.budget_nanos, k.budget_currency, k.budget_period, k.site_id,
       g.name AS group_name, g.models AS group_models, g.rpm AS group_rpm, g.tpm AS group_tpm
FROM relay_keys k
LEFT JOIN accounts a ON a.id = k.account_id
JOIN relay_groups g ON g.name = coalesce(a.relay_group, k.key_group)
WHERE k.key_hash = ${keyHash}
