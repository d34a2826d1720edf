-- Subscription state at instant ${at}, per currency: MRR, the subscriptions with status active
-- whose current period contains ${at}, each amount normalized to one month (monthly_minor,
-- stored with the row: migration 0009), and how many they are. Takes ${siteId}. One pass over a
-- range of migration 0009's index. (New and churned subscriptions are rollup metrics: 0011.)
SELECT s.currency, sum(s.monthly_minor)::bigint AS mrr, count(*)::int AS active
FROM ingest_subscriptions s
WHERE s.site_id = ${siteId} AND s.status = 'active' AND s.period_end > ${at}::timestamptz AND s.period_start <= ${at}::timestamptz
  AND s.period_end > s.period_start
GROUP BY s.currency
