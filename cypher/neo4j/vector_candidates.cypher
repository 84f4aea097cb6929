// vector_candidates — nearest facts from the fr_fact_embedding relationship vector index, as
// full rows (the fields fetch_facts returns), so search needs no second round trip for them.
// The 5.26 index cannot filter by group, so it is asked for $fetch >= $limit hits (sized by
// the group's share of the store, see group_share) and other groups' facts are dropped here;
// the caller scans the group with vector_candidates_exact instead when that is cheaper, or
// when too few survive.
// Params:  $group_id, $embedding (list of floats), $fetch, $limit
// Returns: uuid, score (cosine similarity in [-1, 1], recomputed exactly as fetch_facts does;
//          Neo4j reports (1 + cos) / 2), then fetch_facts' columns (semantic = score)
CALL db.index.vector.queryRelationships('fr_fact_embedding', $fetch, $embedding)
YIELD relationship AS r, score
WHERE r.group_id = $group_id
WITH r ORDER BY score DESC LIMIT $limit
// Only the kept hits get the exact cosine (reading every fetched vector again cost more
// than the index query itself). The caller sorts by it.
WITH r, vector.similarity.cosine(r.{lifecycle_vector}, $embedding) * 2 - 1 AS score
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
RETURN r.uuid AS uuid, score, r.fact AS fact, r.valid_at AS valid_at,
       r.invalid_at AS invalid_at, r.created_at AS created_at, r.expired_at AS expired_at,
       score AS semantic, properties(f) AS overlay
