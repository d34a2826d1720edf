-- The export cannot be made; what was written of it goes. Takes ${id}, ${error}.
WITH dropped AS (
  DELETE FROM export_chunks WHERE export_id = ${id}
)
UPDATE exports SET status = 'failed', error = ${error}, completed_at = now()
WHERE id = ${id} AND status IN ('queued', 'running')
