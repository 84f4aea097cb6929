// vector_candidates — nearest facts from the relationship vector index on fact_embedding.
// The graph is the group's own, so no group filter is needed.
// Params:  $embedding (list of floats), $limit
// Returns: uuid, score (cosine similarity in [-1, 1]; FalkorDB reports cosine distance)
CALL db.idx.vector.queryRelationships('RELATES_TO', 'fact_embedding', $limit, vecf32($embedding))
YIELD relationship AS r, score
RETURN r.uuid AS uuid, 1.0 - score AS score
ORDER BY score DESC
