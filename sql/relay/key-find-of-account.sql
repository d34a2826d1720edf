-- One of the account's keys that is not deleted. Takes ${accountId}, ${id}.
SELECT id, name, prefix, models, created_at, disabled_at, rpm, tpm, budget_nanos, budget_currency, budget_period, expires_at, site_id
FROM relay_keys
WHERE id = ${id} AND account_id = ${accountId} AND deleted_at IS NULL
