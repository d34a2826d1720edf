-- New and churned subscriptions as rollup metrics (issue 4), read with the window's other
-- totals instead of counted per request: `new` scanned every first start in the window (30,000
-- index entries, 4 ms, on the 10M-event bench site), on the finance view's slowest lane.
--   new_subscriptions      by analytics_subscription_starts.started_at
--   churned_subscriptions  subscriptions now cancelled or expired, by their latest occurred_at
-- Churn follows occurred_at, whose hours every subscription write marks already. A first start
-- does not: a subscription's start hour is marked here when the start appears or moves earlier,
-- and so is the hour it leaves. Read before the upsert below, so the old start is still there.
CREATE OR REPLACE FUNCTION analytics_note_subscription_start() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_dirty (site_id, hour)
  SELECT n.site_id, date_trunc('hour', n.period_start, 'UTC')
  FROM new_rows n LEFT JOIN analytics_subscription_starts s USING (site_id, subscription_id)
  WHERE s.started_at IS NULL OR n.period_start < s.started_at
  UNION
  SELECT s.site_id, date_trunc('hour', s.started_at, 'UTC')
  FROM new_rows n JOIN analytics_subscription_starts s USING (site_id, subscription_id)
  WHERE n.period_start < s.started_at;

  INSERT INTO analytics_subscription_starts (site_id, subscription_id, started_at)
  SELECT site_id, subscription_id, period_start FROM new_rows ORDER BY 1, 2
  ON CONFLICT (site_id, subscription_id) DO UPDATE SET started_at = least(analytics_subscription_starts.started_at, EXCLUDED.started_at);
  RETURN NULL;
END $$;

-- The hours holding what is already stored are folded in by the next rollup of each site; until
-- then freshness reports them pending.
INSERT INTO analytics_dirty (site_id, hour)
SELECT site_id, date_trunc('hour', started_at, 'UTC') FROM analytics_subscription_starts
UNION
SELECT site_id, date_trunc('hour', occurred_at, 'UTC') FROM ingest_subscriptions WHERE status IN ('cancelled', 'expired');
