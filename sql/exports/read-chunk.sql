-- One chunk of a file, for the download. Takes ${id}, ${seq}.
SELECT data FROM export_chunks WHERE export_id = ${id} AND seq = ${seq}
