// vector_candidates_exact — exact cosine scan over the group's graph, used while the vector
// index is still being built (FalkorDB builds it asynchronously and rebuilds it on load).
// Params:  $embedding (list of floats), $limit
// Returns: uuid, score (cosine similarity in [-1, 1])
MATCH ()-[r:RELATES_TO]->()
WHERE r.fact_embedding IS NOT NULL
WITH r, 1.0 - vec.cosineDistance(r.fact_embedding, vecf32($embedding)) AS score
RETURN r.uuid AS uuid, score
ORDER BY score DESC
LIMIT $limit
