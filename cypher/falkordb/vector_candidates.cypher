// vector_candidates — nearest facts from the relationship vector index on fact_embedding, as
// full rows (the fields fetch_facts returns), so search needs no second round trip for them.
// The graph is the group's own, so no group filter is needed.
// Params:  $embedding (list of floats), $limit
// Returns: uuid, score (cosine similarity in [-1, 1], recomputed exactly as fetch_facts does;
//          FalkorDB reports cosine distance), then fetch_facts' columns (semantic = score);
//          unordered (the caller sorts)
CALL db.idx.vector.queryRelationships('RELATES_TO', '{lifecycle_vector}', $limit, vecf32($embedding))
YIELD relationship AS r
WITH r, 1.0 - vec.cosineDistance(r.{lifecycle_vector}, vecf32($embedding)) AS score
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
RETURN r.uuid AS uuid, score, r.fact AS fact, r.valid_at AS valid_at,
       r.invalid_at AS invalid_at, r.created_at AS created_at, r.expired_at AS expired_at,
       score AS semantic, properties(f) AS overlay
