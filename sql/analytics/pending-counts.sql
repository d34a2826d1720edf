-- What the site's pending changes add to the rollups' counts (pending-deltas.sql, formatted
-- as ${pendingDeltas} with ${siteId} and no hours), for a view: per quarter hour (epoch ms) and
-- key, without what nets to nothing.
WITH ${pendingDeltas:raw}
SELECT (extract(epoch FROM bucket) * 1000)::bigint AS bucket, metric, per_source, channel, campaign_id, dim, currency, value, first_at, last_at
FROM pending_deltas
WHERE value <> 0 OR first_at IS NOT NULL
