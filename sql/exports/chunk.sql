-- Appends one chunk and moves the progress on, in one statement. Takes ${id}, ${seq}, ${data},
-- ${rowsDone}, ${bytes}.
WITH chunk AS (
  INSERT INTO export_chunks (export_id, seq, data) VALUES (${id}, ${seq}, ${data})
)
UPDATE exports SET rows_done = ${rowsDone}, bytes = ${bytes}
WHERE id = ${id} AND status = 'running'
