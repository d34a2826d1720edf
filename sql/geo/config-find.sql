-- A site's GEO configuration, or no row. Takes ${siteId}.
SELECT site_id, brand_name, brand_aliases, competitors, models, locale, schedule, created_at, updated_at
FROM geo_configs
WHERE site_id = ${siteId}
