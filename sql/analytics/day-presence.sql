-- The hours with data of each UTC day in [${from}, ${to}) (timestamptz, UTC midnights), per
-- metric (migration 0010), for the days that have any. Takes ${siteId}. One narrow index entry
-- a day, sent as one text value, a line `epoch ms|metric,metric,…|mask,mask,…` per day (bit i
-- of a mask: UTC hour i; metric names hold no `,` or `|`): pg's parsing of array columns would
-- cost ten times the query.
SELECT coalesce(string_agg(concat_ws('|', (extract(epoch FROM day) * 1000)::bigint, array_to_string(metrics, ','), array_to_string(hours, ',')), E'\n'), '') AS rows
FROM analytics_presence
WHERE site_id = ${siteId} AND day >= ${from}::timestamptz AND day < ${to}::timestamptz
