-- What the site's pending changes add to analytics_counts, per quarter hour (migration 0017):
-- the record-local figures of analytics_pending_counts (an array of them per statement since
-- migration 0024), and the moves of the figures that depend on other records. Takes ${siteId},
-- ${hours} (timestamptz[], the UTC hours a fold rebuilds from raw records; empty for a view),
-- and for a view the quarter hours it reads, [${lo}, ${hi}) (timestamptz; '-infinity',
-- 'infinity' for a fold), ${view} (true: leave out
-- the first touches that move no money) and ${sources} (false: a view that reads no figure per
-- source, which then skips the first touches and money per source, a few index probes per user
-- that arrived since the last fold). CTEs for a statement's WITH, ending in
-- pending_deltas(bucket, metric, per_source, channel, campaign_id, dim, currency, value,
-- first_at, last_at), plus session_starts (sessions whose counted start moves: c_* now, null
-- if none) and touch_moves (users whose first touch moves: c_* now) for the fold to record.
-- Read by views and by the fold, in the same snapshot as the pending rows the fold deletes.
--
-- Sessions: a session with a new visit no later than the start analytics_session_starts holds
-- (or none), or with a visit in ${hours}, is looked up: if its earliest visit is another, its
-- visit moves, -1 where the rollups count it and +1 at its earliest visit now.
-- Money per source: pending paid orders and succeeded payments count under the touch the
-- rollups attribute by (analytics_user_touch). A user with a new touch event no later than
-- that touch (or none), or with an event in ${hours}, is looked up: if their first touch is now
-- another, all their stored paid orders and succeeded payments move from the old touch to it.
-- Only keys whose new events could come first are looked up, so steady traffic of known
-- sessions and users costs a probe of the state tables each.
pending_hours AS (SELECT unnest(${hours}::timestamptz[]) AS hour),
pending_rebuilt AS (
  SELECT e.* FROM pending_hours h
  CROSS JOIN LATERAL (SELECT * FROM ingest_events x WHERE x.site_id = ${siteId} AND x.occurred_at >= h.hour AND x.occurred_at < h.hour + interval '1 hour' OFFSET 0) e
),
-- Each key once, with its earliest pending time (one grouping: grouping again per kind sorted
-- thousands of keys by the database's collation on every view).
pending_keys AS (
  SELECT kind, key, min(at) AS at FROM (
    SELECT k.kind, u.key, u.at
    FROM analytics_pending_keys k CROSS JOIN LATERAL unnest(k.keys, k.ats) AS u(key, at)
    WHERE k.site_id = ${siteId}
      -- A session's visit moves only to a pending visit (before ${hi} to matter); a user's money
      -- may lie anywhere, and matters only per source.
      AND (k.kind = 'touch' AND ${sources} OR k.kind = 'session' AND u.at < ${hi}::timestamptz)
    UNION ALL
    SELECT 'session', session_id, timestamptz '-infinity' FROM pending_rebuilt WHERE event_type = 'visit' AND session_id IS NOT NULL
    UNION ALL
    SELECT 'touch', external_user_id, timestamptz '-infinity' FROM pending_rebuilt WHERE external_user_id IS NOT NULL
  ) x
  GROUP BY kind, key
),
session_starts AS (
  SELECT k.key AS session_id, c.at AS c_at, c.event_id AS c_event, c.channel AS c_channel, c.campaign_id AS c_campaign,
    f.at AS f_at, f.channel AS f_channel, f.campaign_id AS f_campaign
  FROM (SELECT key, at FROM pending_keys WHERE kind = 'session') k
  LEFT JOIN analytics_session_starts f ON f.site_id = ${siteId} AND f.session_id = k.key
  LEFT JOIN LATERAL (
    SELECT x.occurred_at AS at, x.event_id, coalesce(x.channel, '') AS channel, coalesce(x.campaign_id, '') AS campaign_id
    FROM ingest_events x
    WHERE x.site_id = ${siteId} AND x.event_type = 'visit' AND x.session_id = k.key
    ORDER BY x.occurred_at, x.event_id LIMIT 1
  ) c ON true
  WHERE (f.at IS NULL OR k.at <= f.at)
    AND (c.at, c.event_id, c.channel, c.campaign_id) IS DISTINCT FROM (f.at, f.event_id, f.channel, f.campaign_id)
),
touch_moves AS (
  SELECT k.key AS external_user_id, c.at AS c_at, c.event_id AS c_event, coalesce(c.channel, '') AS c_channel,
    coalesce(c.campaign_id, '') AS c_campaign, coalesce(f.channel, '') AS f_channel, coalesce(f.campaign_id, '') AS f_campaign
  FROM (SELECT key, at FROM pending_keys WHERE kind = 'touch') k
  LEFT JOIN analytics_user_touch f ON f.site_id = ${siteId} AND f.external_user_id = k.key
  LEFT JOIN LATERAL (
    SELECT x.occurred_at AS at, x.event_id, coalesce(x.channel, '') AS channel, coalesce(x.campaign_id, '') AS campaign_id
    FROM ingest_events x
    WHERE x.site_id = ${siteId} AND x.external_user_id = k.key AND (x.channel IS NOT NULL OR x.campaign_id IS NOT NULL)
    ORDER BY x.occurred_at, x.event_id LIMIT 1
  ) c ON true
  WHERE (f.at IS NULL OR k.at <= f.at)
    AND (NOT ${view} OR EXISTS (SELECT 1 FROM ingest_orders o WHERE o.site_id = ${siteId} AND o.external_user_id = k.key)
      OR EXISTS (SELECT 1 FROM ingest_payments p WHERE p.site_id = ${siteId} AND p.external_user_id = k.key))
    AND (c.at, c.event_id) IS DISTINCT FROM (f.at, f.event_id)
),
pending_money AS (
  -- Pending money under the touch the rollups attribute by.
  SELECT p.bucket, p.metric, coalesce(t.channel, '') AS channel, coalesce(t.campaign_id, '') AS campaign_id, p.currency, p.value
  FROM analytics_pending_money p
  LEFT JOIN analytics_user_touch t ON t.site_id = ${siteId} AND t.external_user_id = p.external_user_id
  WHERE ${sources} AND p.site_id = ${siteId} AND p.bucket >= ${lo}::timestamptz AND p.bucket < ${hi}::timestamptz
  UNION ALL
  -- All the stored money of a user whose touch moved, from the old touch to the new.
  SELECT date_bin('15 minutes', o.occurred_at, timestamptz '2000-01-01 00:00Z'), 'paid_orders', s.channel, s.campaign_id, '', s.sign
  FROM touch_moves m
  JOIN ingest_orders o ON o.site_id = ${siteId} AND o.external_user_id = m.external_user_id AND o.status = 'paid'
  CROSS JOIN LATERAL (VALUES (m.f_channel, m.f_campaign, -1::bigint), (m.c_channel, m.c_campaign, 1)) AS s(channel, campaign_id, sign)
  UNION ALL
  SELECT date_bin('15 minutes', p.occurred_at, timestamptz '2000-01-01 00:00Z'), 'revenue', s.channel, s.campaign_id, p.currency, s.sign * p.amount_minor
  FROM touch_moves m
  JOIN ingest_payments p ON p.site_id = ${siteId} AND p.external_user_id = m.external_user_id AND p.status = 'succeeded'
  CROSS JOIN LATERAL (VALUES (m.f_channel, m.f_campaign, -1::bigint), (m.c_channel, m.c_campaign, 1)) AS s(channel, campaign_id, sign)
),
pending_all AS (
  SELECT c.bucket, c.metric, c.per_source, c.channel, c.campaign_id, c.dim, c.currency, c.value, c.first_at, c.last_at
  FROM analytics_pending_counts p CROSS JOIN LATERAL unnest(p.counts) AS c
  WHERE p.site_id = ${siteId} AND c.bucket >= ${lo}::timestamptz AND c.bucket < ${hi}::timestamptz
  UNION ALL
  SELECT date_bin('15 minutes', m.at, timestamptz '2000-01-01 00:00Z'), 'visits', s.per_source,
    CASE WHEN s.per_source THEN m.channel ELSE '' END, CASE WHEN s.per_source THEN m.campaign_id ELSE '' END, '', '', m.value, NULL, NULL
  FROM (
    SELECT f_at AS at, f_channel AS channel, f_campaign AS campaign_id, -1::bigint AS value FROM session_starts WHERE f_at IS NOT NULL
    UNION ALL
    SELECT c_at, c_channel, c_campaign, 1 FROM session_starts WHERE c_at IS NOT NULL
  ) m
  CROSS JOIN (VALUES (false), (true)) AS s(per_source)
  UNION ALL
  SELECT bucket, metric, true, channel, campaign_id, '', currency, value, NULL, NULL FROM pending_money
),
pending_deltas AS (
  SELECT bucket, metric, per_source, channel, campaign_id, dim, currency, sum(value)::bigint AS value,
    min(first_at) AS first_at, max(last_at) AS last_at
  FROM pending_all
  WHERE bucket >= ${lo}::timestamptz AND bucket < ${hi}::timestamptz
  GROUP BY bucket, metric, per_source, channel, campaign_id, dim, currency
)
