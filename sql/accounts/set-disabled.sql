-- Disables (keeping the first time, and ending its sessions) or re-enables an account.
-- Takes ${id}, ${disabled}; returns the row.
WITH ended AS (DELETE FROM sessions WHERE account_id = ${id} AND ${disabled})
UPDATE accounts SET disabled_at = CASE WHEN ${disabled} THEN coalesce(disabled_at, now()) END
WHERE id = ${id}
RETURNING id, email, name, admin, created_at, disabled_at
