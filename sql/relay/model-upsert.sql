-- Sets a model's accepted efforts and kind. Takes ${id}, ${efforts}, ${kind}; returns the row.
INSERT INTO relay_models (id, efforts, kind)
VALUES (${id}, ${efforts}::text[], ${kind})
ON CONFLICT (id) DO UPDATE SET efforts = EXCLUDED.efforts, kind = EXCLUDED.kind, updated_at = now()
RETURNING id, efforts, kind
