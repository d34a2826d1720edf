-- Every account, oldest first, with its relay group: the platform admin's list.
SELECT id, email, name, admin, created_at, disabled_at, relay_group FROM accounts ORDER BY created_at, id
