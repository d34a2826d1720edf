-- Every model setting. Takes nothing.
SELECT id, efforts, kind FROM relay_models
