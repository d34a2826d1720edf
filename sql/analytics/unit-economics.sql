-- Unit economics of a site in [${from}, ${to}), all in SQL so a site with many customers
-- sends back only what the answer shows. Takes ${siteId}, ${from}, ${to}, ${limit} and ${per}
-- (jsonb: nanos per minor unit of each currency, from the runtime's ISO 4217 data).
--
-- Spend: whole UTC hours of the window from relay_spend_hours, the window's ends that cut an
-- hour from relay_usage itself (relay_usage_site_at_idx), so any instant window is exact.
-- Revenue: succeeded payments by occurred_at minus succeeded refunds by theirs (the refund's
-- customer is its payment's), as `receipts` and `refunds` count them.
--
-- Rows: list 'top' (top spenders of a currency, by spend nanos), 'low' (lowest margins of a
-- currency), 'unattributed' (customer null, when there are such calls or payments) and 'totals',
-- each with one customer's (or all) figures, and on every row the customer counts. Ties are
-- broken by customer in byte order. Every customer is aggregated to a few scalars; only the
-- customers shown get their per-currency figures.
WITH bounds AS (
  SELECT f, t, hi,
         CASE WHEN date_trunc('hour', f, 'UTC') = f THEN f ELSE date_trunc('hour', f, 'UTC') + interval '1 hour' END AS lo
  FROM (SELECT ${from}::timestamptz AS f, ${to}::timestamptz AS t, date_trunc('hour', ${to}::timestamptz, 'UTC') AS hi) x
),
-- Calls (whole hours, then the raw ends) and revenue as rows of one shape.
parts AS (
  SELECT h.customer, h.currency, h.calls, h.unpriced_calls AS unpriced, h.cost_nanos AS nanos,
         h.input_tokens, h.output_tokens, NULL::bigint AS net
  FROM bounds b JOIN relay_spend_hours h ON h.site_id = ${siteId} AND h.hour >= b.lo AND h.hour < b.hi
  UNION ALL
  SELECT u.customer, u.currency, 1, (u.unpriced OR (u.cost_nanos IS NULL AND u.currency IS NOT NULL))::int,
         coalesce(u.cost_nanos, 0), coalesce(u.input_tokens, 0), coalesce(u.output_tokens, 0), NULL
  FROM bounds b JOIN relay_usage u ON u.site_id = ${siteId}
    AND ((u.at >= b.f AND u.at < least(b.lo, b.t)) OR (u.at >= greatest(b.hi, b.lo) AND u.at < b.t))
  UNION ALL
  SELECT p.external_user_id, p.currency, 0, 0, 0, 0, 0, p.amount_minor
  FROM ingest_payments p
  WHERE p.site_id = ${siteId} AND p.status = 'succeeded'
    AND p.occurred_at >= ${from}::timestamptz AND p.occurred_at < ${to}::timestamptz
  UNION ALL
  SELECT p.external_user_id, r.currency, 0, 0, 0, 0, 0, -r.amount_minor
  FROM ingest_refunds r
  LEFT JOIN ingest_payments p ON p.site_id = r.site_id AND p.payment_id = r.payment_id
  WHERE r.site_id = ${siteId} AND r.status = 'succeeded'
    AND r.occurred_at >= ${from}::timestamptz AND r.occurred_at < ${to}::timestamptz
),
-- Per customer and currency. nanos: null when no call in it had a cost (no spend entry); net:
-- null when no payment or refund (no revenue entry); minor: spend in minor units, rounded up.
money AS MATERIALIZED (
  SELECT customer, currency, calls, unpriced, input_tokens, output_tokens, nanos, net,
         ceil(nanos / coalesce((${per}::jsonb ->> currency)::bigint, 10000000)) AS minor
  FROM (
    SELECT customer, currency, sum(calls) AS calls, sum(unpriced) AS unpriced,
           sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
           CASE WHEN currency IS NOT NULL AND sum(calls) > sum(unpriced) THEN sum(nanos) END AS nanos,
           sum(net) AS net
    FROM parts GROUP BY customer, currency
  ) x
),
-- Per customer. A margin only when every call had a cost and all money is in one currency
-- (margin_currency null: neither revenue nor spend, a margin of nothing).
customers AS MATERIALIZED (
  SELECT customer, sum(unpriced) AS unpriced,
         sum(unpriced) = 0 AND count(*) FILTER (WHERE net IS NOT NULL OR nanos IS NOT NULL) <= 1 AS has_margin,
         max(currency) FILTER (WHERE net IS NOT NULL OR nanos IS NOT NULL) AS margin_currency,
         coalesce(sum(coalesce(net, 0) - coalesce(minor, 0)), 0) AS margin
  FROM money GROUP BY customer
),
counts AS (
  SELECT count(*)::int AS count,
         count(*) FILTER (WHERE has_margin)::int AS with_margin,
         count(*) FILTER (WHERE has_margin AND margin < 0)::int AS negative_margin,
         count(*) FILTER (WHERE NOT has_margin AND unpriced = 0)::int AS currencies_differ,
         count(*) FILTER (WHERE unpriced > 0)::int AS unpriced_customers
  FROM customers WHERE customer IS NOT NULL
),
-- The customers shown: key orders a list.
shown AS (
  SELECT 'top' AS list, s.currency, m.key, m.customer
  FROM (SELECT DISTINCT currency FROM money WHERE nanos IS NOT NULL) s
  CROSS JOIN LATERAL (
    SELECT -nanos AS key, customer FROM money
    WHERE currency = s.currency AND nanos IS NOT NULL AND customer IS NOT NULL
    ORDER BY nanos DESC, customer COLLATE "C" LIMIT ${limit}
  ) m
  UNION ALL
  SELECT 'low', l.currency, c.key, c.customer
  FROM (SELECT DISTINCT margin_currency AS currency FROM customers
        WHERE has_margin AND customer IS NOT NULL AND margin_currency IS NOT NULL) l
  CROSS JOIN LATERAL (
    SELECT margin AS key, customer FROM customers
    WHERE has_margin AND customer IS NOT NULL AND margin_currency = l.currency
    ORDER BY margin, customer COLLATE "C" LIMIT ${limit}
  ) c
 ),
-- The figures of each customer shown, of calls and payments of no customer (customer null), and
-- of everything (totals).
figures AS (
  SELECT false AS totals, customer, sum(calls)::int AS calls, sum(unpriced)::int AS unpriced,
         sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens,
         coalesce(jsonb_object_agg(currency, net) FILTER (WHERE net IS NOT NULL), '{}') AS revenue,
         coalesce(jsonb_object_agg(currency, nanos) FILTER (WHERE nanos IS NOT NULL), '{}') AS spend_nanos
  FROM money
  WHERE customer IS NULL OR customer IN (SELECT customer FROM shown)
  GROUP BY customer
  UNION ALL
  SELECT true, NULL, coalesce(sum(calls), 0)::int, coalesce(sum(unpriced), 0)::int,
         coalesce(sum(input_tokens), 0)::bigint, coalesce(sum(output_tokens), 0)::bigint,
         coalesce(jsonb_object_agg(currency, net) FILTER (WHERE net IS NOT NULL), '{}'),
         coalesce(jsonb_object_agg(currency, nanos) FILTER (WHERE nanos IS NOT NULL), '{}')
  FROM (SELECT currency, sum(calls) AS calls, sum(unpriced) AS unpriced, sum(input_tokens) AS input_tokens,
               sum(output_tokens) AS output_tokens, sum(net) AS net, sum(nanos) AS nanos
        FROM money GROUP BY currency) t
),
answer AS (
  SELECT s.list, s.currency, s.key, f.* FROM shown s JOIN figures f ON f.customer = s.customer AND NOT f.totals
  UNION ALL
  SELECT CASE WHEN totals THEN 'totals' ELSE 'unattributed' END, NULL, NULL, f.*
  FROM figures f WHERE f.customer IS NULL
)
SELECT r.list, r.currency, r.customer, r.calls, r.unpriced AS unpriced_calls, r.input_tokens, r.output_tokens,
       r.revenue, r.spend_nanos, n.*
FROM answer r CROSS JOIN counts n
ORDER BY r.list, r.currency, r.key, r.customer COLLATE "C"
