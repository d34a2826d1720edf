-- The sites an account owns, oldest first. Takes ${accountId}.
SELECT * FROM sites WHERE account_id = ${accountId} ORDER BY created_at, id
