// vector_candidates_in_index — nearest facts of one group from the fr_fact_embedding index
// filtered by group inside the index (Neo4j 2026.01+, an index made by
// fact_vector_index_filtered), as full rows (see vector_candidates). The index walk visits
// only the group's facts, so its cost does not grow with the other groups in the store.
// Params:  $group_id, $embedding (list of floats), $fetch (hits asked of the index),
//          $limit (rows kept)
// Returns: as vector_candidates
CYPHER 25
MATCH ()-[r:RELATES_TO]->()
  SEARCH r IN (
    VECTOR INDEX fr_fact_embedding
    FOR $embedding
    WHERE r.group_id = $group_id
    LIMIT $fetch
  ) SCORE AS index_score
WITH r ORDER BY index_score DESC LIMIT $limit
// The index scores a compressed vector; the kept hits get the exact cosine (as in
// vector_candidates), by which the caller sorts.
WITH r, vector.similarity.cosine(r.{lifecycle_vector}, $embedding) * 2 - 1 AS score
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
RETURN r.uuid AS uuid, score, r.fact AS fact, r.valid_at AS valid_at,
       r.invalid_at AS invalid_at, r.created_at AS created_at, r.expired_at AS expired_at,
       score AS semantic, properties(f) AS overlay
