-- One export, for its worker. Takes ${id}.
SELECT * FROM exports WHERE id = ${id}
