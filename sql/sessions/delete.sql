-- Ends a session (logout). Takes ${id}.
DELETE FROM sessions WHERE id = ${id}
