-- Marks an answer failed with the reason. Takes ${id}, ${error}.
UPDATE geo_answers SET status = 'failed', error = ${error}, answered_at = now()
WHERE id = ${id} AND status = 'pending'
