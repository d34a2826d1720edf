-- Creates an account. Takes ${email}, ${name}, ${passwordHash}, ${admin}; returns the row.
INSERT INTO accounts (email, name, password_hash, admin)
VALUES (${email}, ${name}, ${passwordHash}, ${admin})
RETURNING id, email, name, admin, created_at, disabled_at
