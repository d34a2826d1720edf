-- A 4-hour rollup grain, 'h4' (issue 4): buckets starting at 00, 04, …, 20 UTC, each the exact
-- sum (or union) of its four hours. A window cut in a zone whose days start off UTC midnight
-- has ragged ends of up to 23 hours on each side; with 4-hour buckets they take at most 5 + 3
-- buckets instead of 23, and every local day of a zone whose offset is a multiple of 4 hours
-- (Asia/Shanghai, UTC−4, UTC−8, …) ends on a bucket edge. Distinct-user reads OR 8-KiB bitmaps
-- per bucket, so retention (13 weeks, each cut at both ends) reads about 2.5 times fewer.
ALTER TABLE analytics_counts DROP CONSTRAINT analytics_counts_grain_check;
ALTER TABLE analytics_counts ADD CONSTRAINT analytics_counts_grain_check CHECK (grain IN ('q', 'h', 'h4', 'd', 'm'));
ALTER TABLE analytics_sets DROP CONSTRAINT analytics_sets_grain_check;
ALTER TABLE analytics_sets ADD CONSTRAINT analytics_sets_grain_check CHECK (grain IN ('q', 'h', 'h4', 'd', 'm'));

-- The 4-hour buckets of everything rolled up so far, from the hours, as
-- sql/analytics/rollup-levels.sql builds them for the hours it recomputes. Deploy workers of
-- this version with it: an older worker's rollup after this leaves the 4-hour buckets of its
-- hours behind until they are recomputed again.
INSERT INTO analytics_counts (site_id, grain, per_source, bucket, metric, channel, campaign_id, dim, currency, value, first_at, last_at)
SELECT site_id, 'h4', per_source, date_bin('4 hours', bucket, timestamptz '2000-01-01 00:00Z'), metric, channel, campaign_id, dim, currency, sum(value), min(first_at), max(last_at)
FROM analytics_counts WHERE grain = 'h'
GROUP BY site_id, per_source, date_bin('4 hours', bucket, timestamptz '2000-01-01 00:00Z'), metric, channel, campaign_id, dim, currency;

INSERT INTO analytics_sets (site_id, grain, kind, bucket, chunk, bits)
SELECT site_id, 'h4', kind, date_bin('4 hours', bucket, timestamptz '2000-01-01 00:00Z'), chunk, bit_or(bits)
FROM analytics_sets WHERE grain = 'h'
GROUP BY site_id, kind, date_bin('4 hours', bucket, timestamptz '2000-01-01 00:00Z'), chunk;
