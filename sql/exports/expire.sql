-- Deletes the files of exports past their expiry and marks them expired. Returns their ids.
WITH due AS (
  SELECT id FROM exports WHERE status = 'completed' AND expires_at <= now()
  ORDER BY expires_at LIMIT 1000 FOR UPDATE SKIP LOCKED
), dropped AS (
  DELETE FROM export_chunks c USING due WHERE c.export_id = due.id
)
UPDATE exports e SET status = 'expired' FROM due WHERE e.id = due.id
RETURNING e.id
