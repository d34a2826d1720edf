-- Site totals of the UTC days [${from}, ${to}) (timestamptz, UTC midnights), each with its 24
-- hourly values: the caller sums the hours into local days of a whole-hour zone. Takes ${siteId}.
SELECT c.bucket, c.metric, c.dim, c.currency, c.hours
FROM analytics_counts c
WHERE c.site_id = ${siteId} AND c.grain = 'd' AND c.per_source = false AND c.bucket >= ${from}::timestamptz AND c.bucket < ${to}::timestamptz
