-- Exports still queued or running, to enqueue again when a worker starts (a job lost with Redis).
SELECT id FROM exports WHERE status IN ('queued', 'running')
