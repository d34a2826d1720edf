-- The fresh path of src/ingest/apply.ts in one statement, and so one transaction and one
-- round trip: lock the batch if it is still queued, insert every record straight from its
-- payload, mark it completed (dropping the payload) and tell the waiting front doors (the
-- NOTIFY is delivered at commit and says what batch-finish.sql's says). Takes ${siteId}, ${resource},
-- ${batchId} and the pieces of the record table's description (src/ingest/tables.ts):
-- ${table}, ${idColumn}, ${columns}, ${select}, ${id}. Returns `applied`, or no row when
-- the batch is missing or no longer queued (a concurrent applier that held the lock finished it).
--
-- A plain INSERT: no conflict probe per row, the primary key checks each key as it goes in. A
-- record already stored (or stored by a concurrent batch, once that commits) fails the whole
-- statement with unique_violation, and the caller applies the batch by the revision rules.
-- Rows go in id order, the lock order every writer shares. Every record is inserted or the
-- statement fails, so `applied` is the batch's record count. Commits without waiting for the
-- WAL flush, for the reason given in apply-relaxed-commit.sql.
WITH batch AS (
  SELECT site_id, resource, batch_id, received, received_at, payload
  FROM ingest_batches
  WHERE site_id = ${siteId} AND resource = ${resource} AND batch_id = ${batchId} AND status = 'queued'
  FOR UPDATE
), inserted AS (
  INSERT INTO ${table:name} (${columns:raw})
  SELECT ${select:raw}
  FROM batch b
  CROSS JOIN LATERAL json_array_elements(b.payload::json) AS e(rec)
  CROSS JOIN LATERAL (SELECT e.rec::jsonb AS j OFFSET 0) AS x
  ORDER BY ${id:raw}
), finished AS (
  UPDATE ingest_batches t
  SET status = 'completed', applied = b.received, unchanged = 0, payload = NULL, completed_at = now()
  FROM batch b
  WHERE t.site_id = b.site_id AND t.resource = b.resource AND t.batch_id = b.batch_id
  RETURNING t.site_id, t.resource, t.batch_id, t.status, t.applied, t.unchanged, t.completed_at
)
SELECT applied,
       set_config('synchronous_commit', 'off', true) AS relaxed,
       pg_notify('radar_ingest_batches', concat_ws(' ', site_id || '/' || resource || '/' || batch_id, status, applied, unchanged, floor(extract(epoch FROM completed_at) * 1000))) AS notified
FROM finished
