-- Disables (keeping the first disable time) or enables again one of the account's keys.
-- Takes ${accountId}, ${id}, ${disabled}; returns the row, or nothing when the account has
-- no such key.
UPDATE relay_keys
SET disabled_at = CASE WHEN ${disabled} THEN coalesce(disabled_at, now()) END
WHERE id = ${id} AND account_id = ${accountId} AND deleted_at IS NULL
RETURNING id, name, prefix, models, created_at, disabled_at
