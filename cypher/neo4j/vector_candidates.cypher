// vector_candidates — nearest facts from the fr_fact_embedding relationship vector index.
// The 5.26 index cannot filter by group, so it is asked for $fetch >= $limit hits (sized by
// the group's share of the store, see group_share) and other groups' facts are dropped here;
// the caller scans the group with vector_candidates_exact instead when that is cheaper, or
// when too few survive.
// Params:  $group_id, $embedding (list of floats), $fetch, $limit
// Returns: uuid, score (cosine similarity in [-1, 1]; Neo4j reports (1 + cos) / 2)
CALL db.index.vector.queryRelationships('fr_fact_embedding', $fetch, $embedding)
YIELD relationship AS r, score
WHERE r.group_id = $group_id
RETURN r.uuid AS uuid, score * 2 - 1 AS score
ORDER BY score DESC
LIMIT $limit
