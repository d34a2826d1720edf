-- A credential's own request limit (README "Limits"). NULL follows its site's limit, then the
-- server default; 0 turns the limit off for that credential.
ALTER TABLE credentials
  ADD COLUMN requests_per_min integer CHECK (requests_per_min >= 0);
