// vector_candidates_exact_range — one part of a partitioned exact scan: the group's facts whose
// uuid is in [$low, $high), seeked through the (group_id, uuid) index. The caller runs the
// parts concurrently (Neo4j runs each query on one thread) and keeps the best $limit of all;
// uuids are random hex, so equal hex ranges hold about equal shares of the group.
// Params:  $group_id, $embedding (list of floats), $limit, $low, $high (uuid bounds)
// Returns: as vector_candidates_exact
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id AND r.uuid >= $low AND r.uuid < $high
WITH r, vector.similarity.cosine(r.{lifecycle_vector}, $embedding) AS similarity
WHERE similarity IS NOT NULL
WITH r, similarity * 2 - 1 AS score
ORDER BY score DESC
LIMIT $limit
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
RETURN r.uuid AS uuid, score, r.fact AS fact, r.valid_at AS valid_at,
       r.invalid_at AS invalid_at, r.created_at AS created_at, r.expired_at AS expired_at,
       score AS semantic, properties(f) AS overlay
