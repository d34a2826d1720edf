-- Creates or replaces a group. Takes ${name}, ${models}, ${rpm}, ${tpm}; returns the row.
INSERT INTO relay_groups (name, models, rpm, tpm)
VALUES (${name}, ${models}::text[], ${rpm}, ${tpm})
ON CONFLICT (name) DO UPDATE
SET models = EXCLUDED.models, rpm = EXCLUDED.rpm, tpm = EXCLUDED.tpm, updated_at = now()
RETURNING name, models, rpm, tpm, created_at, updated_at
