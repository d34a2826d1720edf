-- Opens a session. Takes ${accountId}, ${tokenHash}, ${expiresAt}; returns id and expiry.
INSERT INTO sessions (account_id, token_hash, expires_at)
VALUES (${accountId}, ${tokenHash}, ${expiresAt})
RETURNING id, expires_at
