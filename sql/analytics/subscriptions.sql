-- Subscription figures at instant ${at} and over [${from}, ${to}). Takes ${siteId}.
-- mrr: per currency, the subscriptions with status active whose current period contains ${at},
--   each amount normalized to one month by its period's length in calendar months (a period of
--   1 month counts its amount, 1 year a twelfth, 7 days 30/7 of it), rounded half away from zero.
-- active: how many such subscriptions. new: subscriptions whose first period_start ever falls
-- in the window. churned: subscriptions now cancelled or expired whose latest change
-- (occurred_at) falls in the window.
WITH active AS (
  SELECT s.currency,
    round(s.amount_minor / (extract(year FROM a.age) * 12 + extract(month FROM a.age)
      + extract(day FROM a.age) / 30.0 + extract(epoch FROM (a.age - date_trunc('day', a.age))) / 2592000.0)) AS monthly
  FROM ingest_subscriptions s
  CROSS JOIN LATERAL (SELECT age(s.period_end AT TIME ZONE 'UTC', s.period_start AT TIME ZONE 'UTC') AS age) a
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
