-- Inserts every record of a stored batch, straight from its payload, when none of them is
-- stored yet (src/ingest/apply.ts, the fresh path). Same pieces as upsert-records.sql, taking
-- ${siteId}, ${resource}, ${batchId}, ${table}, ${idColumn}, ${columns}, ${select}, ${nested}.
-- A plain INSERT: no conflict probe per row, the unique index checks each key as it inserts.
-- A record stored meanwhile (or by a concurrent batch, once that commits) fails the whole
-- statement with unique_violation, and the caller applies the batch again with the revision
-- rules. Rows go in id order, the lock order every writer shares. Returns nothing.
INSERT INTO ${table:name} (${columns:raw})
SELECT ${select:raw}
FROM ingest_batches b
CROSS JOIN LATERAL json_array_elements(b.payload::json) AS e(rec)
CROSS JOIN LATERAL (SELECT e.rec::jsonb AS j OFFSET 0) AS x
CROSS JOIN LATERAL jsonb_populate_record(NULL::${table:name}, x.j) AS r
${nested:raw}
WHERE b.site_id = ${siteId} AND b.resource = ${resource} AND b.batch_id = ${batchId}
ORDER BY r.${idColumn:name}
