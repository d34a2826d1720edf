-- Site totals of the metrics ${metrics} (text[]) on the UTC days [${from}, ${to}) (timestamptz, UTC
-- midnights), each with its 24 hourly values: the caller sums the hours into local days of a
-- whole-hour zone. Takes ${siteId}.
-- One text value, a line `epoch ms|metric|dim|currency|{h1,…,h24}` per row (none of those
-- fields can hold `|` or a newline): cheaper to produce and to parse than rows with int8[] or JSON.
SELECT coalesce(string_agg(concat_ws('|', (extract(epoch FROM c.bucket) * 1000)::bigint, c.metric, c.dim, c.currency, c.hours::text), E'\n'), '') AS rows
FROM analytics_counts c
WHERE c.site_id = ${siteId} AND c.grain = 'd' AND c.per_source = false AND c.bucket >= ${from}::timestamptz AND c.bucket < ${to}::timestamptz
  AND c.metric = ANY(${metrics}::text[])
