-- Stores a model's answer and what was found in it; a stored answer is never overwritten.
-- Takes ${id}, ${text}, ${channelId}, ${mentions} (JSON), ${brandPosition}, ${competitorMentioned},
-- ${citationCount}, ${citesOwnDomain}, ${inputTokens}, ${outputTokens}. Returns the id when stored.
UPDATE geo_answers SET
  status = 'succeeded', text = ${text}, error = NULL, channel_id = ${channelId},
  mentions = ${mentions}::jsonb, brand_position = ${brandPosition},
  competitor_mentioned = ${competitorMentioned}, citation_count = ${citationCount},
  cites_own_domain = ${citesOwnDomain}, input_tokens = ${inputTokens}, output_tokens = ${outputTokens},
  answered_at = now()
WHERE id = ${id} AND status = 'pending'
RETURNING id
