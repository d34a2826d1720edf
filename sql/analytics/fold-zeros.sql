-- Takes ${siteId}, ${buckets} (timestamptz[], quarter hours fold-counts.sql wrote). Removes the
-- rows a move emptied (a session's visit or a user's money now counted elsewhere), so an
-- acquisition source with nothing left is not listed, as a rebuild from raw records would not.
DELETE FROM analytics_counts
WHERE site_id = ${siteId} AND grain = 'q' AND per_source IN (false, true) AND bucket = ANY(${buckets}::timestamptz[])
  AND value = 0 AND metric IN ('visits', 'paid_orders', 'revenue')
