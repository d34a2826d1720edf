-- Moves an account into a group. Takes ${accountId}, ${group}; returns the account id and
-- group, or nothing when no such account exists.
UPDATE accounts SET relay_group = ${group} WHERE id = ${accountId}
RETURNING id, relay_group AS group
