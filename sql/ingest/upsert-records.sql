-- Writes the records of a stored batch whose 1-based positions are in ${apply}, straight from
-- its payload: the records never travel back from the worker. Takes ${siteId}, ${resource},
-- ${batchId}, ${apply}, and from the table's description (src/ingest/tables.ts) ${table},
-- ${idColumn}, ${columns}, ${select} (the typed columns read from the record `x.j`), ${id}
-- and ${assignments}.
-- json_array_elements, not the jsonb form: each element keeps its canonical text, which is
-- what content_digest hashes. OFFSET 0 keeps the planner from pulling the jsonb cast up into
-- every place that reads x.j: without it each record was parsed once per use.
-- Rows go in id order, the one lock order every writer shares. The revision guard keeps a
-- newer revision stored by a concurrent batch; the caller compares the returned ids with what
-- it meant to write and starts over when they differ. Returns the ids written.
INSERT INTO ${table:name} (${columns:raw})
SELECT ${select:raw}
FROM ingest_batches b
CROSS JOIN LATERAL json_array_elements(b.payload::json) WITH ORDINALITY AS e(rec, i)
CROSS JOIN LATERAL (SELECT e.rec::jsonb AS j OFFSET 0) AS x
WHERE b.site_id = ${siteId} AND b.resource = ${resource} AND b.batch_id = ${batchId}
  AND e.i = ANY(${apply}::int[])
ORDER BY ${id:raw}
ON CONFLICT (site_id, ${idColumn:name}) DO UPDATE SET ${assignments:raw}
WHERE EXCLUDED.revision > ${table:name}.revision
RETURNING ${idColumn:name} AS id
