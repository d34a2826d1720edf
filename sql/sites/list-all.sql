-- Every site, oldest first: what the platform admin sees.
SELECT * FROM sites ORDER BY created_at, id
