-- Every account, oldest first: the platform admin's list.
SELECT id, email, name, admin, created_at, disabled_at FROM accounts ORDER BY created_at, id
