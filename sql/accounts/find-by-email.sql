-- One account by email, case-insensitively. Takes ${email}; returns the row with its password hash.
SELECT id, email, name, admin, password_hash, created_at, disabled_at
FROM accounts
WHERE lower(email) = lower(${email})
