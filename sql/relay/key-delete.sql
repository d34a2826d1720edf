-- Deletes one of the account's keys: it stops working and leaves the lists, while its
-- metered calls keep pointing at it. Takes ${accountId}, ${id}; returns the row, or nothing.
UPDATE relay_keys
SET deleted_at = now(), disabled_at = coalesce(disabled_at, now())
WHERE id = ${id} AND account_id = ${accountId} AND deleted_at IS NULL
RETURNING id, name, prefix, models, created_at, disabled_at, rpm, tpm, budget_nanos, budget_currency, budget_period, expires_at, site_id
