-- For each span [lo, hi) of ${los}, ${his} (timestamptz[], in order): true when the site holds
-- nothing there that a rollup counts — no record of any family at its occurred_at, and no
-- subscription first started (analytics_subscription_starts, what new_subscriptions counts).
-- Each test is one probe of a (site_id, time) index. A view asks it of the quarter-hour parts a
-- window's ends leave out (src/analytics/read-window.ts).
SELECT NOT (
  EXISTS (SELECT 1 FROM ingest_events x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi)
  OR EXISTS (SELECT 1 FROM ingest_orders x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi)
  OR EXISTS (SELECT 1 FROM ingest_payments x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi)
  OR EXISTS (SELECT 1 FROM ingest_refunds x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi)
  OR EXISTS (SELECT 1 FROM ingest_subscriptions x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi)
  OR EXISTS (SELECT 1 FROM ingest_costs x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi)
  OR EXISTS (SELECT 1 FROM ingest_expenses x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi)
  OR EXISTS (SELECT 1 FROM ingest_observations x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi)
  OR EXISTS (SELECT 1 FROM ingest_customers x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi)
  OR EXISTS (SELECT 1 FROM ingest_campaigns x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi)
  OR EXISTS (SELECT 1 FROM ingest_summaries x WHERE x.site_id = ${siteId} AND x.occurred_at >= s.lo AND x.occurred_at < s.hi)
  OR EXISTS (SELECT 1 FROM analytics_subscription_starts x WHERE x.site_id = ${siteId} AND x.started_at >= s.lo AND x.started_at < s.hi)
) AS quiet
FROM unnest(${los}::timestamptz[], ${his}::timestamptz[]) WITH ORDINALITY AS s(lo, hi, i)
ORDER BY s.i
