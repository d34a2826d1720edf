-- One audit by id. Takes ${id}.
SELECT * FROM geo_audits WHERE id = ${id}
