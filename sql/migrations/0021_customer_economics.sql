-- Unit economics from one rollup (issue 19): per site, customer, currency and UTC hour and UTC
-- day, a customer's model calls (spend, tokens) and money (succeeded payments − succeeded refunds).
-- The view read relay_spend_hours (one row per customer and hour: as many rows as calls on a
-- site whose customers call a few times a day) and every payment and refund of the window,
-- joining each refund to its payment; it now reads the whole UTC days of a window as day rows,
-- the hours that cut a day (a zone's midnight that is not UTC's) as hour rows, and only the
-- parts shorter than an hour at the ends from the raw records.
--
-- Kept by statement triggers in the transaction that writes the records, so the view is as
-- fresh as the records and a retried batch adds nothing (rows it did not insert or revise are in
-- no transition table). A revised payment or refund takes back its old contribution and adds
-- its new one. A refund counts for its payment's customer: a payment that appears after its
-- refunds, or whose customer changes, moves its refunds' contribution to its customer.
--
-- customer and currency: '' for none (a call naming no customer, a payment without
-- external_user_id; an unpriced or refused call), which neither can be, so the primary key is
-- the upsert's conflict target on PostgreSQL 13 (no NULLS NOT DISTINCT).
-- records: succeeded payments and refunds, so a customer whose money nets to 0 still has revenue
-- (0) and one whose only payment was revised to failed has none. Counts are integers (no
-- customer makes 2^31 calls in a day): summing them is the view's cheapest aggregate.
CREATE TABLE customer_economics (
  site_id        uuid NOT NULL,
  grain          text NOT NULL CHECK (grain IN ('h', 'd')),
  bucket         timestamptz NOT NULL,
  customer       text NOT NULL,
  currency       text NOT NULL,
  calls          integer NOT NULL,
  unpriced_calls integer NOT NULL,
  input_tokens   bigint NOT NULL,
  output_tokens  bigint NOT NULL,
  cost_nanos     bigint NOT NULL,
  records        integer NOT NULL,
  net_minor      bigint NOT NULL,
  PRIMARY KEY (site_id, grain, bucket, customer, currency)
);

-- Adds signed contributions (jsonb rows: site_id, at, customer, currency and any of the figures,
-- a missing one 0) to the hour and the day of `at`, in key order so concurrent writers lock rows
-- in one order.
CREATE FUNCTION customer_economics_add(deltas jsonb) RETURNS void LANGUAGE sql AS $$
  INSERT INTO customer_economics AS c
  SELECT d.site_id, g.grain, date_trunc(g.unit, d.at, 'UTC'), d.customer, d.currency,
         sum(coalesce(d.calls, 0)), sum(coalesce(d.unpriced_calls, 0)), sum(coalesce(d.input_tokens, 0)),
         sum(coalesce(d.output_tokens, 0)), sum(coalesce(d.cost_nanos, 0)), sum(coalesce(d.records, 0)),
         sum(coalesce(d.net_minor, 0))
  FROM jsonb_to_recordset(deltas) AS d(site_id uuid, at timestamptz, customer text, currency text, calls bigint,
         unpriced_calls bigint, input_tokens bigint, output_tokens bigint, cost_nanos bigint, records bigint, net_minor bigint)
  CROSS JOIN (VALUES ('h', 'hour'), ('d', 'day')) AS g(grain, unit)
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (site_id, grain, bucket, customer, currency) DO UPDATE SET
    calls = c.calls + excluded.calls,
    unpriced_calls = c.unpriced_calls + excluded.unpriced_calls,
    input_tokens = c.input_tokens + excluded.input_tokens,
    output_tokens = c.output_tokens + excluded.output_tokens,
    cost_nanos = c.cost_nanos + excluded.cost_nanos,
    records = c.records + excluded.records,
    net_minor = c.net_minor + excluded.net_minor
$$;

-- A statement's metered calls of a site (relay_usage rows are only ever inserted). unpriced:
-- no cost known (an unpriced model, or no tokens reported); a refused call has no currency.
CREATE FUNCTION customer_economics_calls() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM customer_economics_add(jsonb_agg(d)) FROM (
    SELECT site_id, date_trunc('hour', at, 'UTC') AS at, coalesce(customer, '') AS customer,
           coalesce(currency, '') AS currency, count(*) AS calls,
           count(*) FILTER (WHERE unpriced OR (cost_nanos IS NULL AND currency IS NOT NULL)) AS unpriced_calls,
           coalesce(sum(input_tokens), 0) AS input_tokens, coalesce(sum(output_tokens), 0) AS output_tokens,
           coalesce(sum(cost_nanos), 0) AS cost_nanos
    FROM new_rows WHERE site_id IS NOT NULL GROUP BY 1, 2, 3, 4
  ) d;
  RETURN NULL;
END $$;
CREATE TRIGGER customer_economics_ins AFTER INSERT ON relay_usage
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION customer_economics_calls();

-- A payment's refunds, for moving them with their payment's customer.
CREATE INDEX ingest_refunds_payment_idx ON ingest_refunds (site_id, payment_id);

-- The customer a refund of `payment` counts for: its payment's, '' while there is none.
CREATE FUNCTION customer_economics_payer(site uuid, payment text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT external_user_id FROM ingest_payments WHERE site_id = site AND payment_id = payment), '')
$$;

-- Payments and refunds of one payment are counted under a transaction lock on that payment, so
-- a refund never reads its payment's customer while a concurrent transaction changes it (the
-- refund would stay with a customer the payment no longer has); each statement after the lock
-- sees what the other committed. A payment's lock is one of 64 per site (a bulk import of many
-- payments takes at most 64, not one each from the shared lock table), taken in one order, so
-- writers never deadlock on them.
CREATE FUNCTION customer_economics_lock(payments jsonb) RETURNS void LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(k)
  FROM (SELECT DISTINCT hashtextextended('radar.economics.payment/' || (p->>'site_id') || '/'
                                         || (hashtext(p->>'payment_id') & 63), 0) AS k
        FROM jsonb_array_elements(payments) AS p ORDER BY 1) x
$$;

-- A statement's payments: a succeeded payment adds its amount for its customer; a revised one
-- first takes back what its old row added. A new payment, or one whose customer changed, moves
-- its succeeded refunds from the customer they counted for (the old one, '' before the payment
-- existed) to its customer.
CREATE FUNCTION customer_economics_payments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM customer_economics_lock(jsonb_agg(jsonb_build_object('site_id', site_id, 'payment_id', payment_id))) FROM new_rows;
    PERFORM customer_economics_add(jsonb_agg(d)) FROM (
      SELECT site_id, occurred_at AS at, coalesce(external_user_id, '') AS customer, currency, 1 AS records, amount_minor AS net_minor
      FROM new_rows WHERE status = 'succeeded'
      UNION ALL
      SELECT r.site_id, r.occurred_at, m.customer, r.currency, m.sign, -m.sign * r.amount_minor
      FROM new_rows n
      JOIN ingest_refunds r ON r.site_id = n.site_id AND r.payment_id = n.payment_id AND r.status = 'succeeded'
      CROSS JOIN LATERAL (VALUES ('', -1), (n.external_user_id, 1)) AS m(customer, sign)
      WHERE n.external_user_id IS NOT NULL
    ) d;
  ELSE
    PERFORM customer_economics_lock(jsonb_agg(jsonb_build_object('site_id', site_id, 'payment_id', payment_id))) FROM new_rows;
    PERFORM customer_economics_add(jsonb_agg(d)) FROM (
      SELECT site_id, occurred_at AS at, coalesce(external_user_id, '') AS customer, currency, -1 AS records, -amount_minor AS net_minor
      FROM old_rows WHERE status = 'succeeded'
      UNION ALL
      SELECT site_id, occurred_at, coalesce(external_user_id, ''), currency, 1, amount_minor
      FROM new_rows WHERE status = 'succeeded'
      UNION ALL
      SELECT r.site_id, r.occurred_at, m.customer, r.currency, m.sign, -m.sign * r.amount_minor
      FROM old_rows o
      JOIN new_rows n ON n.site_id = o.site_id AND n.payment_id = o.payment_id
      JOIN ingest_refunds r ON r.site_id = n.site_id AND r.payment_id = n.payment_id AND r.status = 'succeeded'
      CROSS JOIN LATERAL (VALUES (coalesce(o.external_user_id, ''), -1), (coalesce(n.external_user_id, ''), 1)) AS m(customer, sign)
      WHERE o.external_user_id IS DISTINCT FROM n.external_user_id
    ) d;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER customer_economics_ins AFTER INSERT ON ingest_payments
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION customer_economics_payments();
CREATE TRIGGER customer_economics_upd AFTER UPDATE ON ingest_payments
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION customer_economics_payments();

-- A statement's refunds: a succeeded refund takes its amount off its payment's customer; a
-- revised one first gives back what its old row took.
CREATE FUNCTION customer_economics_refunds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM customer_economics_lock(jsonb_agg(jsonb_build_object('site_id', site_id, 'payment_id', payment_id))) FROM new_rows;
    PERFORM customer_economics_add(jsonb_agg(d)) FROM (
      SELECT site_id, occurred_at AS at, customer_economics_payer(site_id, payment_id) AS customer, currency,
             1 AS records, -amount_minor AS net_minor
      FROM new_rows WHERE status = 'succeeded'
    ) d;
  ELSE
    PERFORM customer_economics_lock(jsonb_agg(jsonb_build_object('site_id', site_id, 'payment_id', payment_id)))
    FROM (SELECT site_id, payment_id FROM old_rows UNION SELECT site_id, payment_id FROM new_rows) x;
    PERFORM customer_economics_add(jsonb_agg(d)) FROM (
      SELECT site_id, occurred_at AS at, customer_economics_payer(site_id, payment_id) AS customer, currency,
             -1 AS records, amount_minor AS net_minor
      FROM old_rows WHERE status = 'succeeded'
      UNION ALL
      SELECT site_id, occurred_at, customer_economics_payer(site_id, payment_id), currency, 1, -amount_minor
      FROM new_rows WHERE status = 'succeeded'
    ) d;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER customer_economics_ins AFTER INSERT ON ingest_refunds
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION customer_economics_refunds();
CREATE TRIGGER customer_economics_upd AFTER UPDATE ON ingest_refunds
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION customer_economics_refunds();

-- What is stored today.
INSERT INTO customer_economics
SELECT site_id, g.grain, date_trunc(g.unit, at, 'UTC'), customer, currency, sum(calls), sum(unpriced_calls),
       sum(input_tokens), sum(output_tokens), sum(cost_nanos), sum(records), sum(net_minor)
FROM (
  SELECT site_id, at, coalesce(customer, '') AS customer, coalesce(currency, '') AS currency, 1 AS calls,
         (unpriced OR (cost_nanos IS NULL AND currency IS NOT NULL))::int AS unpriced_calls,
         coalesce(input_tokens, 0) AS input_tokens, coalesce(output_tokens, 0) AS output_tokens,
         coalesce(cost_nanos, 0) AS cost_nanos, 0 AS records, 0 AS net_minor
  FROM relay_usage WHERE site_id IS NOT NULL
  UNION ALL
  SELECT site_id, occurred_at, coalesce(external_user_id, ''), currency, 0, 0, 0, 0, 0, 1, amount_minor
  FROM ingest_payments WHERE status = 'succeeded'
  UNION ALL
  SELECT r.site_id, r.occurred_at, coalesce(p.external_user_id, ''), r.currency, 0, 0, 0, 0, 0, 1, -r.amount_minor
  FROM ingest_refunds r LEFT JOIN ingest_payments p ON p.site_id = r.site_id AND p.payment_id = r.payment_id
  WHERE r.status = 'succeeded'
) x
CROSS JOIN (VALUES ('h', 'hour'), ('d', 'day')) AS g(grain, unit)
GROUP BY 1, 2, 3, 4, 5;

-- Replaced by customer_economics, whose trigger on relay_usage now does what the statement
-- storing calls did.
DROP TABLE relay_spend_hours;
