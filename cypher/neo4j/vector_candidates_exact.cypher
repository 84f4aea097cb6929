// vector_candidates_exact — exact cosine scan over one group's facts (small groups, or when
// the index's top hits belong mostly to other groups), as full rows (see vector_candidates).
// Params:  $group_id, $embedding (list of floats), $limit
// Returns: uuid, score (cosine similarity in [-1, 1]; Neo4j reports (1 + cos) / 2), then
//          fetch_facts' columns (semantic = score)
// Facts without an embedding are dropped after the cosine (null), not before: a separate
// IS NOT NULL test read each 1.5 kB vector twice (13% slower on a 10k group).
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id
WITH r, vector.similarity.cosine(r.{lifecycle_vector}, $embedding) AS similarity
WHERE similarity IS NOT NULL
WITH r, similarity * 2 - 1 AS score
ORDER BY score DESC
LIMIT $limit
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
RETURN r.uuid AS uuid, score, r.fact AS fact, r.valid_at AS valid_at,
       r.invalid_at AS invalid_at, r.created_at AS created_at, r.expired_at AS expired_at,
       score AS semantic, properties(f) AS overlay
