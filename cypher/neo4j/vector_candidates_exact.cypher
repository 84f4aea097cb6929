// vector_candidates_exact — exact cosine scan over one group's facts (small groups, or when
// the index's top hits belong mostly to other groups).
// Params:  $group_id, $embedding (list of floats), $limit
// Returns: uuid, score (cosine similarity in [-1, 1]; Neo4j reports (1 + cos) / 2)
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id AND r.fact_embedding IS NOT NULL
WITH r, vector.similarity.cosine(r.fact_embedding, $embedding) * 2 - 1 AS score
RETURN r.uuid AS uuid, score
ORDER BY score DESC
LIMIT $limit
