-- The site's campaigns (latest revision): name and channel, for the acquisition view. Takes ${siteId}.
SELECT campaign_id, name, channel FROM ingest_campaigns WHERE site_id = ${siteId}
