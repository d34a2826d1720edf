-- Adds an upstream channel. Takes ${name}, ${baseUrl}, ${apiKey}, ${models}, ${protocols},
-- ${priority}, ${weight}; returns its id.
INSERT INTO relay_channels (name, base_url, api_key, models, protocols, priority, weight)
VALUES (${name}, ${baseUrl}, ${apiKey}, ${models}::text[], ${protocols}::text[], ${priority}, ${weight})
RETURNING id
