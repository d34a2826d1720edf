-- One account by id. Takes ${id}; returns the row.
SELECT id, email, name, admin, created_at FROM accounts WHERE id = ${id}
