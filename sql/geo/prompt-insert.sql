-- Adds a prompt unless the site already has it, unless the site has ${max} prompts already.
-- Takes ${siteId}, ${text}, ${max}. Returns the prompt (new or existing) with `created`, or no
-- row when the limit is reached.
WITH existing AS (
  SELECT id, text, created_at, false AS created FROM geo_prompts WHERE site_id = ${siteId} AND text = ${text}
), inserted AS (
  INSERT INTO geo_prompts (site_id, text)
  SELECT ${siteId}, ${text}
  WHERE NOT EXISTS (SELECT 1 FROM existing)
    AND (SELECT count(*) FROM geo_prompts WHERE site_id = ${siteId}) < ${max}
  ON CONFLICT (site_id, text) DO NOTHING
  RETURNING id, text, created_at, true AS created
)
SELECT * FROM existing UNION ALL SELECT * FROM inserted
