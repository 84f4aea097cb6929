// stored_fact_vectors — a few stored Graphiti fact vectors, to tell which embedder wrote a
// graph that has no record of it (by their dimension; FalkorDB has no size() of a vector).
// Params:  $limit
// Returns: embedding
MATCH ()-[r:RELATES_TO]->()
WHERE r.fact_embedding IS NOT NULL
RETURN r.fact_embedding AS embedding
LIMIT $limit
