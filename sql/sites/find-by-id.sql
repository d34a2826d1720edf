-- One site by id. Takes ${id}.
SELECT * FROM sites WHERE id = ${id}
