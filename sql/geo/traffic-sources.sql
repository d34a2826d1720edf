-- Visits in the window per day (in ${tz}) and source: the event's properties.channel, its
-- campaign_id and that campaign's name (the values an assistant referral can show up in),
-- with the distinct identified users of those visits (visitors are counted per assistant
-- over the whole window, so the caller unions them across days and sources).
-- Takes ${siteId}, ${from}, ${to}, ${tz}. The caller decides which sources are AI assistants.
SELECT to_char((e.occurred_at AT TIME ZONE ${tz})::date, 'YYYY-MM-DD') AS day,
       e.channel, e.campaign_id, c.name AS campaign_name,
       count(*)::int AS visits,
       coalesce(array_agg(DISTINCT e.external_user_id) FILTER (WHERE e.external_user_id IS NOT NULL), '{}') AS users
FROM ingest_events e
LEFT JOIN ingest_campaigns c ON c.site_id = e.site_id AND c.campaign_id = e.campaign_id
WHERE e.site_id = ${siteId} AND e.event_type = 'visit'
  AND e.occurred_at >= ${from}::timestamptz AND e.occurred_at < ${to}::timestamptz
  AND (e.channel IS NOT NULL OR e.campaign_id IS NOT NULL)
GROUP BY 1, 2, 3, 4
ORDER BY 1
