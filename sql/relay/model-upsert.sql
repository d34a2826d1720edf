-- Sets a model's accepted efforts, kind and whether budgeted keys may call it unpriced.
-- Takes ${id}, ${efforts}, ${kind}, ${allowUnpriced}; returns the row.
INSERT INTO relay_models (id, efforts, kind, allow_unpriced)
VALUES (${id}, ${efforts}::text[], ${kind}, ${allowUnpriced})
ON CONFLICT (id) DO UPDATE
SET efforts = EXCLUDED.efforts, kind = EXCLUDED.kind, allow_unpriced = EXCLUDED.allow_unpriced, updated_at = now()
RETURNING id, efforts, kind, allow_unpriced
