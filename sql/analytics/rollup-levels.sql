-- Takes ${siteId}, ${hours} (timestamptz[], UTC hours whose quarter hours were recomputed).
-- Rebuilds the coarser buckets containing them, each from the next finer grain: the hours
-- from quarter hours, their 4-hour buckets and their UTC days from hours (days carry the hourly
-- values), their UTC months from days. Sums for
-- analytics_counts, unions (bit_or) for analytics_sets, and the UTC days' hours with data
-- per metric (analytics_presence) from the hours. Delete and insert: idempotent.
-- LATERAL ... OFFSET 0: one primary-key range scan per bucket (see rollup-counts.sql), and per
-- per_source value: with `per_source IN (false, true)` the planner may filter per_source
-- instead of seeking it, and then every bucket scans all of the site's finer rows.
DELETE FROM analytics_counts c USING unnest(${hours}::timestamptz[]) AS h(hour)
WHERE c.site_id = ${siteId} AND c.grain = 'h' AND c.per_source IN (false, true) AND c.bucket = h.hour;
INSERT INTO analytics_counts (site_id, grain, per_source, bucket, metric, channel, campaign_id, dim, currency, value, first_at, last_at)
SELECT ${siteId}, 'h', c.per_source, h.hour, c.metric, c.channel, c.campaign_id, c.dim, c.currency, sum(c.value), min(c.first_at), max(c.last_at)
FROM unnest(${hours}::timestamptz[]) AS h(hour)
CROSS JOIN (VALUES (false), (true)) AS p(per_source)
CROSS JOIN LATERAL (SELECT * FROM analytics_counts x WHERE x.site_id = ${siteId} AND x.grain = 'q' AND x.per_source = p.per_source AND x.bucket >= h.hour AND x.bucket < h.hour + interval '1 hour' OFFSET 0) c
GROUP BY h.hour, c.per_source, c.metric, c.channel, c.campaign_id, c.dim, c.currency;

DELETE FROM analytics_counts c USING (SELECT DISTINCT date_bin('4 hours', hour, timestamptz '2000-01-01 00:00Z') AS b FROM unnest(${hours}::timestamptz[]) AS hour) f
WHERE c.site_id = ${siteId} AND c.grain = 'h4' AND c.per_source IN (false, true) AND c.bucket = f.b;
INSERT INTO analytics_counts (site_id, grain, per_source, bucket, metric, channel, campaign_id, dim, currency, value, first_at, last_at)
SELECT ${siteId}, 'h4', c.per_source, f.b, c.metric, c.channel, c.campaign_id, c.dim, c.currency, sum(c.value), min(c.first_at), max(c.last_at)
FROM (SELECT DISTINCT date_bin('4 hours', hour, timestamptz '2000-01-01 00:00Z') AS b FROM unnest(${hours}::timestamptz[]) AS hour) f
CROSS JOIN (VALUES (false), (true)) AS p(per_source)
CROSS JOIN LATERAL (SELECT * FROM analytics_counts x WHERE x.site_id = ${siteId} AND x.grain = 'h' AND x.per_source = p.per_source AND x.bucket >= f.b AND x.bucket < f.b + interval '4 hours' OFFSET 0) c
GROUP BY f.b, c.per_source, c.metric, c.channel, c.campaign_id, c.dim, c.currency;

DELETE FROM analytics_counts c USING (SELECT DISTINCT date_trunc('day', hour, 'UTC') AS day FROM unnest(${hours}::timestamptz[]) AS hour) d
WHERE c.site_id = ${siteId} AND c.grain = 'd' AND c.per_source IN (false, true) AND c.bucket = d.day;
INSERT INTO analytics_counts (site_id, grain, per_source, bucket, metric, channel, campaign_id, dim, currency, value, first_at, last_at, hours)
SELECT ${siteId}, 'd', c.per_source, d.day, c.metric, c.channel, c.campaign_id, c.dim, c.currency, sum(c.value), min(c.first_at), max(c.last_at),
  CASE WHEN NOT c.per_source THEN (
    SELECT array_agg(coalesce(v.value, 0) ORDER BY g.i)
    FROM generate_series(0, 23) AS g(i)
    LEFT JOIN unnest(array_agg(extract(hour FROM c.bucket AT TIME ZONE 'UTC')::int), array_agg(c.value)) AS v(i, value) ON v.i = g.i
  ) END
FROM (SELECT DISTINCT date_trunc('day', hour, 'UTC') AS day FROM unnest(${hours}::timestamptz[]) AS hour) d
CROSS JOIN (VALUES (false), (true)) AS p(per_source)
CROSS JOIN LATERAL (SELECT * FROM analytics_counts x WHERE x.site_id = ${siteId} AND x.grain = 'h' AND x.per_source = p.per_source AND x.bucket >= d.day AND x.bucket < d.day + interval '24 hours' OFFSET 0) c
GROUP BY d.day, c.per_source, c.metric, c.channel, c.campaign_id, c.dim, c.currency;

DELETE FROM analytics_presence p USING (SELECT DISTINCT date_trunc('day', hour, 'UTC') AS day FROM unnest(${hours}::timestamptz[]) AS hour) d
WHERE p.site_id = ${siteId} AND p.day = d.day;
INSERT INTO analytics_presence (site_id, day, metrics, hours)
SELECT ${siteId}, m.day, array_agg(m.metric ORDER BY m.metric), array_agg(m.mask ORDER BY m.metric)
FROM (
  SELECT d.day, c.metric, bit_or(1 << extract(hour FROM c.bucket AT TIME ZONE 'UTC')::int) AS mask
  FROM (SELECT DISTINCT date_trunc('day', hour, 'UTC') AS day FROM unnest(${hours}::timestamptz[]) AS hour) d
  CROSS JOIN LATERAL (SELECT * FROM analytics_counts x WHERE x.site_id = ${siteId} AND x.grain = 'h' AND x.per_source = false AND x.bucket >= d.day AND x.bucket < d.day + interval '24 hours' OFFSET 0) c
  WHERE c.value <> 0
  GROUP BY d.day, c.metric
) m
GROUP BY m.day;

DELETE FROM analytics_counts c USING (SELECT DISTINCT date_trunc('month', hour, 'UTC') AS month FROM unnest(${hours}::timestamptz[]) AS hour) m
WHERE c.site_id = ${siteId} AND c.grain = 'm' AND c.per_source IN (false, true) AND c.bucket = m.month;
INSERT INTO analytics_counts (site_id, grain, per_source, bucket, metric, channel, campaign_id, dim, currency, value, first_at, last_at)
SELECT ${siteId}, 'm', c.per_source, m.month, c.metric, c.channel, c.campaign_id, c.dim, c.currency, sum(c.value), min(c.first_at), max(c.last_at)
FROM (SELECT DISTINCT date_trunc('month', hour, 'UTC') AS month FROM unnest(${hours}::timestamptz[]) AS hour) m
CROSS JOIN (VALUES (false), (true)) AS p(per_source)
CROSS JOIN LATERAL (SELECT * FROM analytics_counts x WHERE x.site_id = ${siteId} AND x.grain = 'd' AND x.per_source = p.per_source AND x.bucket >= m.month AND x.bucket < (m.month AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC' OFFSET 0) c
GROUP BY m.month, c.per_source, c.metric, c.channel, c.campaign_id, c.dim, c.currency;

DELETE FROM analytics_sets s USING unnest(${hours}::timestamptz[]) AS h(hour)
WHERE s.site_id = ${siteId} AND s.grain = 'h' AND s.bucket = h.hour;
INSERT INTO analytics_sets (site_id, grain, kind, bucket, chunk, bits)
SELECT ${siteId}, 'h', s.kind, h.hour, s.chunk, bit_or(s.bits)
FROM unnest(${hours}::timestamptz[]) AS h(hour)
CROSS JOIN LATERAL (SELECT * FROM analytics_sets x WHERE x.site_id = ${siteId} AND x.grain = 'q' AND x.bucket >= h.hour AND x.bucket < h.hour + interval '1 hour' OFFSET 0) s
GROUP BY h.hour, s.kind, s.chunk;

DELETE FROM analytics_sets s USING (SELECT DISTINCT date_bin('4 hours', hour, timestamptz '2000-01-01 00:00Z') AS b FROM unnest(${hours}::timestamptz[]) AS hour) f
WHERE s.site_id = ${siteId} AND s.grain = 'h4' AND s.bucket = f.b;
INSERT INTO analytics_sets (site_id, grain, kind, bucket, chunk, bits)
SELECT ${siteId}, 'h4', s.kind, f.b, s.chunk, bit_or(s.bits)
FROM (SELECT DISTINCT date_bin('4 hours', hour, timestamptz '2000-01-01 00:00Z') AS b FROM unnest(${hours}::timestamptz[]) AS hour) f
CROSS JOIN LATERAL (SELECT * FROM analytics_sets x WHERE x.site_id = ${siteId} AND x.grain = 'h' AND x.bucket >= f.b AND x.bucket < f.b + interval '4 hours' OFFSET 0) s
GROUP BY f.b, s.kind, s.chunk;

DELETE FROM analytics_sets s USING (SELECT DISTINCT date_trunc('day', hour, 'UTC') AS day FROM unnest(${hours}::timestamptz[]) AS hour) d
WHERE s.site_id = ${siteId} AND s.grain = 'd' AND s.bucket = d.day;
INSERT INTO analytics_sets (site_id, grain, kind, bucket, chunk, bits)
SELECT ${siteId}, 'd', s.kind, d.day, s.chunk, bit_or(s.bits)
FROM (SELECT DISTINCT date_trunc('day', hour, 'UTC') AS day FROM unnest(${hours}::timestamptz[]) AS hour) d
CROSS JOIN LATERAL (SELECT * FROM analytics_sets x WHERE x.site_id = ${siteId} AND x.grain = 'h' AND x.bucket >= d.day AND x.bucket < d.day + interval '24 hours' OFFSET 0) s
GROUP BY d.day, s.kind, s.chunk;

DELETE FROM analytics_sets s USING (SELECT DISTINCT date_trunc('month', hour, 'UTC') AS month FROM unnest(${hours}::timestamptz[]) AS hour) m
WHERE s.site_id = ${siteId} AND s.grain = 'm' AND s.bucket = m.month;
INSERT INTO analytics_sets (site_id, grain, kind, bucket, chunk, bits)
SELECT ${siteId}, 'm', s.kind, m.month, s.chunk, bit_or(s.bits)
FROM (SELECT DISTINCT date_trunc('month', hour, 'UTC') AS month FROM unnest(${hours}::timestamptz[]) AS hour) m
CROSS JOIN LATERAL (SELECT * FROM analytics_sets x WHERE x.site_id = ${siteId} AND x.grain = 'd' AND x.bucket >= m.month AND x.bucket < (m.month AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC' OFFSET 0) s
GROUP BY m.month, s.kind, s.chunk;
