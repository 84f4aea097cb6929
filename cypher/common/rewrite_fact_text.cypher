// rewrite_fact_text — replace a fact's text and its embedding (a compression summary
// rebuilt without a purged original). The fulltext and vector indexes follow by themselves.
// Params:  $edge_uuid, $fact, $embedding (the deployment embedder's vector),
//          $lifecycle_embedding (fr-graph's e5 vector; the same property when local)
// Returns: uuid
MATCH ()-[r:RELATES_TO {uuid: $edge_uuid}]->()
SET r.fact = $fact, r.fact_embedding = $embedding,
    r.{lifecycle_vector} = $lifecycle_embedding
RETURN r.uuid AS uuid
