-- Subscription figures at instant ${at} and over [${from}, ${to}). Takes ${siteId}.
-- mrr: per currency, the subscriptions with status active whose current period contains ${at},
--   each amount normalized to one month (monthly_minor, stored with the row: migration 0009).
-- active: how many such subscriptions. new: subscriptions whose first period_start ever falls
-- in the window. churned: subscriptions now cancelled or expired whose latest change
-- (occurred_at) falls in the window. Each is a range scan of a migration-0009, 0007 or 0004 index.
WITH active AS (
  SELECT s.currency, s.monthly_minor AS monthly
  FROM ingest_subscriptions s
  WHERE s.site_id = ${siteId} AND s.status = 'active' AND s.period_end > ${at}::timestamptz AND s.period_start <= ${at}::timestamptz
    AND s.period_end > s.period_start
)
SELECT 'mrr' AS figure, currency, sum(monthly)::bigint AS value FROM active GROUP BY currency
UNION ALL
SELECT 'active', '', count(*) FROM active
UNION ALL
SELECT 'new', '', count(*) FROM analytics_subscription_starts
WHERE site_id = ${siteId} AND started_at >= ${from}::timestamptz AND started_at < ${to}::timestamptz
UNION ALL
SELECT 'churned', '', count(*) FROM ingest_subscriptions
WHERE site_id = ${siteId} AND status IN ('cancelled', 'expired') AND occurred_at >= ${from}::timestamptz AND occurred_at < ${to}::timestamptz
