-- Uses up every setup token when this digest is a live one; returns rows only then. Takes ${tokenHash}.
-- Callers hold the setup lock, so two uses of one token cannot both see it live.
DELETE FROM setup_tokens
WHERE EXISTS (SELECT 1 FROM setup_tokens WHERE token_hash = ${tokenHash} AND expires_at > now())
RETURNING 1 AS used
