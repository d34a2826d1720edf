-- The unexpired session with this token digest, and its account (unless disabled). Takes ${tokenHash}.
SELECT s.id, s.token_hash, s.account_id, a.admin
FROM sessions s JOIN accounts a ON a.id = s.account_id
WHERE s.token_hash = ${tokenHash} AND s.expires_at > now() AND a.disabled_at IS NULL
