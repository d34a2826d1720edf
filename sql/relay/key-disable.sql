-- Disables a key (idempotent: the first disable time is kept). Takes ${id}; returns the row
-- or nothing when no such key exists.
UPDATE relay_keys SET disabled_at = coalesce(disabled_at, now())
WHERE id = ${id}
RETURNING id, disabled_at
