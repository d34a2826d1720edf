-- The group an account belongs to. Takes ${accountId}.
SELECT g.name, g.models, g.rpm, g.tpm, g.created_at, g.updated_at
FROM accounts a JOIN relay_groups g ON g.name = a.relay_group
WHERE a.id = ${accountId}
