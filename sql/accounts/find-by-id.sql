-- One account by id. Takes ${id}; returns the row.
SELECT id, email, name, admin, created_at, disabled_at FROM accounts WHERE id = ${id}
