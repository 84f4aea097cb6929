// vector_candidates_exact — exact cosine scan over the group's graph, used while the vector
// index is still being built (FalkorDB builds it asynchronously and rebuilds it on load), as
// full rows (see vector_candidates).
// Params:  $embedding (list of floats), $limit
// Returns: uuid, score (cosine similarity in [-1, 1]), then fetch_facts' columns
MATCH ()-[r:RELATES_TO]->()
WHERE r.{lifecycle_vector} IS NOT NULL
WITH r, 1.0 - vec.cosineDistance(r.{lifecycle_vector}, vecf32($embedding)) AS score
ORDER BY score DESC
LIMIT $limit
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
RETURN r.uuid AS uuid, score, r.fact AS fact, r.valid_at AS valid_at,
       r.invalid_at AS invalid_at, r.created_at AS created_at, r.expired_at AS expired_at,
       score AS semantic, properties(f) AS overlay
