// set_lifecycle_vectors — store fr-graph's own e5 vectors beside Graphiti's when the
// deployment's embedder is another model. FalkorDB's vector index holds only vecf32 values.
// Params:  $rows: list of {uuid, embedding}
// Returns: written
UNWIND $rows AS row
MATCH ()-[r:RELATES_TO {uuid: row.uuid}]->()
SET r.{lifecycle_vector} = vecf32(row.embedding)
RETURN count(r) AS written
