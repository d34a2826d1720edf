-- Every model the admin can see: served by a channel (enabled or not) or configured, with
-- its settings (null when never set). Takes nothing.
SELECT m.id, s.efforts, s.kind, coalesce(s.allow_unpriced, false) AS allow_unpriced
FROM (SELECT unnest(models) AS id FROM relay_channels UNION SELECT id FROM relay_models) m
LEFT JOIN relay_models s ON s.id = m.id
ORDER BY m.id
