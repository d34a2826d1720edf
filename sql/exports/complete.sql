-- The file is whole. Takes ${id}, ${rowsDone}, ${bytes}, ${meta}, ${ttlHours}.
UPDATE exports
SET status = 'completed', rows_done = ${rowsDone}, rows_total = ${rowsDone}, bytes = ${bytes}, meta = ${meta},
    completed_at = now(), expires_at = now() + make_interval(hours => ${ttlHours})
WHERE id = ${id} AND status = 'running'
