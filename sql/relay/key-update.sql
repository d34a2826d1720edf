-- Replaces the settings of one of the account's keys; disabling keeps the first disable
-- time. Takes ${accountId}, ${id}, ${name}, ${disabled}, ${rpm}, ${tpm}, ${budgetNanos},
-- ${budgetCurrency}, ${budgetPeriod}, ${expiresAt}, ${siteId}; returns the row, or nothing.
UPDATE relay_keys
SET name = ${name},
    disabled_at = CASE WHEN ${disabled} THEN coalesce(disabled_at, now()) END,
    rpm = ${rpm}, tpm = ${tpm},
    budget_nanos = ${budgetNanos}, budget_currency = ${budgetCurrency}, budget_period = ${budgetPeriod},
    expires_at = ${expiresAt}, site_id = ${siteId}
WHERE id = ${id} AND account_id = ${accountId} AND deleted_at IS NULL
RETURNING id, name, prefix, models, created_at, disabled_at, rpm, tpm, budget_nanos, budget_currency, budget_period, expires_at, site_id
