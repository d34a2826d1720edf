-- Writes many records in one statement. Takes ${table}, ${idColumn}, ${assignments} (the
-- `col = EXCLUDED.col` list of every non-key column) and ${rows}: a JSON array of objects whose
-- keys are the table's columns. One JSON value instead of a multi-row VALUES list: the client
-- formats one string instead of thousands of literals, and PostgreSQL parses it in one pass.
-- The revision guard keeps a newer revision stored by a concurrent batch; the caller
-- compares the returned ids with what it meant to write and starts over when they differ.
INSERT INTO ${table:name}
SELECT * FROM json_populate_recordset(NULL::${table:name}, ${rows})
ON CONFLICT (site_id, ${idColumn:name}) DO UPDATE SET ${assignments:raw}
WHERE EXCLUDED.revision > ${table:name}.revision
RETURNING ${idColumn:name} AS id
