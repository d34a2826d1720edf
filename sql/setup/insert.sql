-- Stores a setup token's digest. Takes ${tokenHash}, ${expiresAt}.
INSERT INTO setup_tokens (token_hash, expires_at) VALUES (${tokenHash}, ${expiresAt})
