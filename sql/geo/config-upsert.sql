-- Replaces a site's GEO configuration whole. Takes ${siteId}, ${brandName}, ${brandAliases},
-- ${competitors} (JSON text), ${models}, ${locale}, ${schedule} (JSON text or null).
-- Returns the stored row.
INSERT INTO geo_configs (site_id, brand_name, brand_aliases, competitors, models, locale, schedule)
VALUES (${siteId}, ${brandName}, ${brandAliases}::text[], ${competitors}::jsonb, ${models}::text[], ${locale}, ${schedule}::jsonb)
ON CONFLICT (site_id) DO UPDATE SET
  brand_name = EXCLUDED.brand_name,
  brand_aliases = EXCLUDED.brand_aliases,
  competitors = EXCLUDED.competitors,
  models = EXCLUDED.models,
  locale = EXCLUDED.locale,
  schedule = EXCLUDED.schedule,
  updated_at = now()
RETURNING site_id, brand_name, brand_aliases, competitors, models, locale, schedule, created_at, updated_at
