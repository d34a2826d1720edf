-- Every model setting. Takes nothing.
SELECT id, efforts, kind, allow_unpriced FROM relay_models
