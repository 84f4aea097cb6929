// rewrite_fact_text — replace a fact's text and its embedding (a compression summary
// rebuilt without a purged original). FalkorDB's vector index holds only vecf32 values.
// Params:  $edge_uuid, $fact, $embedding (the deployment embedder's vector),
//          $lifecycle_embedding (fr-graph's e5 vector; the same property when local)
// Returns: uuid
MATCH ()-[r:RELATES_TO {uuid: $edge_uuid}]->()
SET r.fact = $fact, r.fact_embedding = vecf32($embedding),
    r.{lifecycle_vector} = vecf32($lifecycle_embedding)
RETURN r.uuid AS uuid
