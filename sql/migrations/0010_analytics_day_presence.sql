-- Which hours of each UTC day have data, per metric (issue 4). Every view's coverage asks, for
-- each local day of the window, whether it holds records of each family; a zone whose days
-- start on whole hours takes that from the hours of UTC days. Read from the days' hourly
-- arrays in analytics_counts, that was ~1,100 wide index entries for a 90-day window, 4–6 ms
-- on every view. Here a UTC day of a site is one narrow entry: the metrics with data that day
-- and, for each, a bitmask of its hours (bit i: UTC hour i has a non-zero value), about
-- 0.1 ms for the same window.
CREATE TABLE analytics_presence (
  site_id uuid NOT NULL,
  day     timestamptz NOT NULL,
  -- Parallel arrays, sorted by metric: metrics[i] has data in the hours of hours[i].
  metrics text[] NOT NULL,
  hours   integer[] NOT NULL,
  PRIMARY KEY (site_id, day) INCLUDE (metrics, hours)
);

-- Everything rolled up so far, as sql/analytics/rollup-levels.sql builds it for the days it
-- recomputes. Deploy workers of this version with it: an older worker's rollup leaves the
-- presence of its days behind until they are recomputed again.
INSERT INTO analytics_presence (site_id, day, metrics, hours)
SELECT site_id, day, array_agg(metric ORDER BY metric), array_agg(mask ORDER BY metric)
FROM (
  SELECT site_id, date_trunc('day', bucket, 'UTC') AS day, metric, bit_or(1 << extract(hour FROM bucket AT TIME ZONE 'UTC')::int) AS mask
  FROM analytics_counts
  WHERE grain = 'h' AND NOT per_source AND value <> 0
  GROUP BY 1, 2, 3
) m
GROUP BY site_id, day;
