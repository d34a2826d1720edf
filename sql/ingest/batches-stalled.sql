-- Batches still queued a while after they were accepted: their job may have been lost with
-- Redis or with a front door killed before it enqueued. Oldest first.
-- Takes ${olderThanSeconds}, ${limit}.
SELECT site_id, resource, batch_id
FROM ingest_batches
WHERE status = 'queued' AND received_at < now() - make_interval(secs => ${olderThanSeconds})
ORDER BY received_at
LIMIT ${limit}
