-- The account's keys that are not deleted, newest first. Takes ${accountId}.
SELECT id, name, prefix, models, created_at, disabled_at, rpm, tpm, budget_nanos, budget_currency, budget_period, expires_at, site_id
FROM relay_keys
WHERE account_id = ${accountId} AND deleted_at IS NULL
ORDER BY created_at DESC, id
