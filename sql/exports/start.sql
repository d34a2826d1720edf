-- The worker takes a queued export, or one whose worker died while it ran (a retried job):
-- its chunks so far are dropped and it starts again. Takes ${id}, ${rowsTotal}. No row: nothing to do.
WITH dropped AS (
  DELETE FROM export_chunks WHERE export_id = ${id}
)
UPDATE exports
SET status = 'running', started_at = now(), rows_total = ${rowsTotal}, rows_done = 0, bytes = 0
WHERE id = ${id} AND status IN ('queued', 'running')
RETURNING id
