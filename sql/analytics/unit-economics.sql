-- Unit economics of a site in [${from}, ${to}), all in SQL so a site with many customers
-- sends back only what the answer shows. Takes ${siteId}, ${from}, ${to}, ${limit}, ${per}
-- (jsonb: nanos per minor unit of each currency, from the runtime's ISO 4217 data) and the cuts
-- of the window (src/analytics/unit-economics.ts `cuts`): ${from} ≤ ${hourLo} ≤ ${dayLo} ≤
-- ${dayHi} ≤ ${hourHi} ≤ ${to}.
--
-- Whole UTC days [dayLo, dayHi) and hours [hourLo, dayLo) and [dayHi, hourHi) from
-- customer_economics; the ends shorter than an hour, [from, hourLo) and [hourHi, to), from the
-- calls, payments and refunds themselves (index ranges of under an hour), by the rollup's
-- definitions (sql/migrations/0021_customer_economics.sql), so any instant window is exact.
--
-- Part ${part} of ${parts}: only the customers whose id hashes to it (the unattributed row with
-- them), so parts hold disjoint customers and run on as many connections at once, their counts
-- and totals adding up and their lists merging (unit-economics.ts); one part of one is all. The
-- test is wrapped in a CASE, which PostgreSQL takes to keep half the rows: an equality on the
-- hash it takes to keep 0.5%, and it then sorts the customers to group them instead of hashing.
--
-- Rows: list 'top' (top spenders of a currency, by spend nanos), 'low' (lowest margins of a
-- currency), 'unattributed' (customer null, when there are such calls or payments) and 'totals',
-- each with one customer's (or all) figures and its rank key (-nanos, margin), and on every row
-- the customer counts. Ties are broken by customer in byte order. Every customer is aggregated
-- to a few scalars; only the customers shown get their per-currency figures.
WITH parts AS (
  SELECT customer, currency, calls, unpriced_calls AS unpriced, input_tokens, output_tokens, cost_nanos AS nanos,
         records, net_minor AS net
  FROM customer_economics
  WHERE site_id = ${siteId}
    AND ((grain = 'd' AND bucket >= ${dayLo}::timestamptz AND bucket < ${dayHi}::timestamptz)
      OR (grain = 'h' AND bucket >= ${hourLo}::timestamptz AND bucket < ${dayLo}::timestamptz)
      OR (grain = 'h' AND bucket >= ${dayHi}::timestamptz AND bucket < ${hourHi}::timestamptz))
  UNION ALL
  SELECT coalesce(customer, ''), coalesce(currency, ''), 1, (unpriced OR (cost_nanos IS NULL AND currency IS NOT NULL))::int,
         coalesce(input_tokens, 0), coalesce(output_tokens, 0), coalesce(cost_nanos, 0), 0, 0
  FROM relay_usage
  WHERE site_id = ${siteId}
    AND ((at >= ${from}::timestamptz AND at < ${hourLo}::timestamptz) OR (at >= ${hourHi}::timestamptz AND at < ${to}::timestamptz))
  UNION ALL
  SELECT coalesce(external_user_id, ''), currency, 0, 0, 0, 0, 0, 1, amount_minor
  FROM ingest_payments
  WHERE site_id = ${siteId} AND status = 'succeeded'
    AND ((occurred_at >= ${from}::timestamptz AND occurred_at < ${hourLo}::timestamptz)
      OR (occurred_at >= ${hourHi}::timestamptz AND occurred_at < ${to}::timestamptz))
  UNION ALL
  SELECT customer_economics_payer(r.site_id, r.payment_id), r.currency, 0, 0, 0, 0, 0, 1, -r.amount_minor
  FROM ingest_refunds r
  WHERE r.site_id = ${siteId} AND r.status = 'succeeded'
    AND ((r.occurred_at >= ${from}::timestamptz AND r.occurred_at < ${hourLo}::timestamptz)
      OR (r.occurred_at >= ${hourHi}::timestamptz AND r.occurred_at < ${to}::timestamptz))
),
-- Per customer and currency, back to null for none. nanos: null when no call in it had a cost
-- (no spend entry); net: null when no succeeded payment or refund (no revenue entry); minor:
-- spend in minor units, rounded up (nanos are never negative). A customer whose figures were
-- all taken back (a payment revised to failed) is not there.
money AS MATERIALIZED (
  SELECT nullif(customer, '') AS customer, nullif(currency, '') AS currency, calls, unpriced,
         input_tokens, output_tokens, nanos, net,
         (nanos + per - 1) / per AS minor
  FROM (
    SELECT customer, currency, sum(calls) AS calls, sum(unpriced) AS unpriced,
           bigint_sum(input_tokens) AS input_tokens, bigint_sum(output_tokens) AS output_tokens,
           CASE WHEN currency <> '' AND sum(calls) > sum(unpriced) THEN bigint_sum(nanos) END AS nanos,
           CASE WHEN sum(records) > 0 THEN bigint_sum(net) END AS net,
           coalesce((${per}::jsonb ->> currency)::bigint, 10000000) AS per
    FROM parts
    WHERE ${parts} = 1 OR CASE WHEN (hashtext(customer) & 2147483647) % ${parts} = ${part} THEN true ELSE false END
    GROUP BY customer, currency
    HAVING sum(calls) > 0 OR sum(records) > 0
  ) x
),
-- Per customer. A margin only when every call had a cost and all money is in one currency
-- (margin_currency null: neither revenue nor spend, a margin of nothing).
customers AS MATERIALIZED (
  SELECT customer, bool_or(unpriced > 0) AS unpriced,
         NOT bool_or(unpriced > 0) AND count(*) FILTER (WHERE net IS NOT NULL OR nanos IS NOT NULL) <= 1 AS has_margin,
         max(currency) FILTER (WHERE net IS NOT NULL OR nanos IS NOT NULL) AS margin_currency,
         coalesce(bigint_sum(coalesce(net, 0) - coalesce(minor, 0)), 0) AS margin
  FROM money GROUP BY customer
),
counts AS (
  SELECT count(*)::int AS count,
         count(*) FILTER (WHERE has_margin)::int AS with_margin,
         count(*) FILTER (WHERE has_margin AND margin < 0)::int AS negative_margin,
         count(*) FILTER (WHERE NOT has_margin AND NOT unpriced)::int AS currencies_differ,
         count(*) FILTER (WHERE unpriced)::int AS unpriced_customers
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
  FROM (SELECT currency, bigint_sum(calls) AS calls, bigint_sum(unpriced) AS unpriced, bigint_sum(input_tokens) AS input_tokens,
               bigint_sum(output_tokens) AS output_tokens, bigint_sum(net) AS net, bigint_sum(nanos) AS nanos
        FROM money GROUP BY currency) t
),
answer AS (
  SELECT s.list, s.currency, s.key, f.* FROM shown s JOIN figures f ON f.customer = s.customer AND NOT f.totals
  UNION ALL
  SELECT CASE WHEN totals THEN 'totals' ELSE 'unattributed' END, NULL, NULL, f.*
  FROM figures f WHERE f.customer IS NULL
)
SELECT r.list, r.currency, r.customer, r.key::text AS key, r.calls, r.unpriced AS unpriced_calls, r.input_tokens, r.output_tokens,
       r.revenue, r.spend_nanos, n.*
FROM answer r CROSS JOIN counts n
ORDER BY r.list, r.currency, r.key, r.customer COLLATE "C"
