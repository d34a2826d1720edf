-- Subscription figures at instant ${at}. Takes ${siteId}.
-- mrr: per currency, the subscriptions with status active whose current period contains ${at},
--   each amount normalized to one month (monthly_minor, stored with the row: migration 0009).
-- active: how many such subscriptions. One range scan of migration 0009's index.
-- (New and churned subscriptions in a window are rollup metrics: migration 0011.)
WITH active AS (
  SELECT s.currency, s.monthly_minor AS monthly
  FROM ingest_subscriptions s
  WHERE s.site_id = ${siteId} AND s.status = 'active' AND s.period_end > ${at}::timestamptz AND s.period_start <= ${at}::timestamptz
    AND s.period_end > s.period_start
)
SELECT 'mrr' AS figure, currency, sum(monthly)::bigint AS value FROM active GROUP BY currency
UNION ALL
SELECT 'active', '', count(*) FROM active
