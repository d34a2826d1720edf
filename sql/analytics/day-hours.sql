-- Site totals of the metrics ${metrics} (text[]) on the UTC days [${from}, ${to}) (timestamptz, UTC
-- midnights), each with its 24 hours: the caller sums the hours into local days of a whole-hour
-- zone. Takes ${siteId}. Metrics in ${values} (text[]) come with their hourly values; the others
-- are only asked whether they have data, and come with the positions (1-24) of their zero hours,
-- which are few on busy days and cost far less to send and to read than 24 values.
-- One text value, a line `epoch ms|metric|dim|currency|{h1,…,h24}` or `…|z{zero positions}` per
-- row (none of those fields can hold `|` or a newline): cheaper to produce and to parse than rows
-- with int8[] or JSON.
SELECT coalesce(string_agg(concat_ws('|', (extract(epoch FROM c.bucket) * 1000)::bigint, c.metric, c.dim, c.currency,
    CASE WHEN c.metric = ANY(${values}::text[]) THEN c.hours::text ELSE 'z' || array_positions(c.hours, 0::bigint)::text END), E'\n'), '') AS rows
FROM analytics_counts c
WHERE c.site_id = ${siteId} AND c.grain = 'd' AND c.per_source = false AND c.bucket >= ${from}::timestamptz AND c.bucket < ${to}::timestamptz
  AND c.metric = ANY(${metrics}::text[])
