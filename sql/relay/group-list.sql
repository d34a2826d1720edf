-- Every group, by name. Takes nothing.
SELECT name, models, rpm, tpm, created_at, updated_at FROM relay_groups ORDER BY name
