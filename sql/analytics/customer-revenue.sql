-- Net revenue per customer in [${from}, ${to}): succeeded payments by their occurred_at minus
-- succeeded refunds by theirs (the refund's customer is its payment's), per currency, as
-- `receipts` and `refunds` count them. customer null: payments without external_user_id.
-- Takes ${siteId}, ${from}, ${to}.
SELECT customer, currency, sum(amount)::bigint AS net
FROM (
  SELECT p.external_user_id AS customer, p.currency, p.amount_minor AS amount
  FROM ingest_payments p
  WHERE p.site_id = ${siteId} AND p.status = 'succeeded'
    AND p.occurred_at >= ${from}::timestamptz AND p.occurred_at < ${to}::timestamptz
  UNION ALL
  SELECT p.external_user_id, r.currency, -r.amount_minor
  FROM ingest_refunds r
  LEFT JOIN ingest_payments p ON p.site_id = r.site_id AND p.payment_id = r.payment_id
  WHERE r.site_id = ${siteId} AND r.status = 'succeeded'
    AND r.occurred_at >= ${from}::timestamptz AND r.occurred_at < ${to}::timestamptz
) x
GROUP BY customer, currency
