-- Model spend as a site's costs: each metered call records the site its key was used for at
-- the time of the call (a key moved to another site later does not move past spend) and the
-- customer the call was made for (the request's X-Radar-Customer header, `safety_identifier`
-- or `user`), which analytics matches to `external_user_id`.
-- No foreign key on site_id: a batch of metered calls must never fail to store because a
-- site was removed while its key row was still cached.
ALTER TABLE relay_usage
  ADD COLUMN site_id uuid,
  ADD COLUMN customer text;

-- Calls metered before this migration belong to the site their key names now.
UPDATE relay_usage u SET site_id = k.site_id FROM relay_keys k WHERE k.id = u.key_id AND k.site_id IS NOT NULL;

-- Analytics reads a site's calls of a window by this index alone (an index-only scan).
CREATE INDEX relay_usage_site_at_idx ON relay_usage (site_id, at)
  INCLUDE (customer, currency, cost_nanos, unpriced, input_tokens, output_tokens)
  WHERE site_id IS NOT NULL;
