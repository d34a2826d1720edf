-- Ingested summaries without dimensions whose period lies inside [${from}, ${to}). Takes
-- ${siteId}, ${from}, ${to}. Summaries split by channel or campaign are not site totals and are
-- left out; the caller places each summary on the local day that contains its whole period.
SELECT metric, period_start, period_end, value, currency
FROM ingest_summaries
WHERE site_id = ${siteId} AND period_start >= ${from}::timestamptz AND period_end <= ${to}::timestamptz
  AND channel IS NULL AND campaign_id IS NULL
ORDER BY period_start, summary_id
