-- Every site with a schedule, to re-install job schedulers at worker start. Returns site_id, schedule.
SELECT site_id, schedule FROM geo_configs WHERE schedule IS NOT NULL
