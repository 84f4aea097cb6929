// fetch_facts — full rows for candidate facts: Graphiti's fields, the canonical overlay and
// the exact cosine to the query (computed here so embeddings never cross the wire).
// Params:  $group_id, $edge_uuids: list of RELATES_TO uuids, $embedding: the query vector
// Returns: uuid, fact, valid_at, invalid_at, created_at, expired_at, semantic (cosine in
//          [-1, 1], null without embedding), overlay (the FrFact node's properties as a map,
//          null for unannotated facts)
UNWIND $edge_uuids AS edge_uuid
MATCH ()-[r:RELATES_TO {uuid: edge_uuid}]->()
WHERE r.group_id = $group_id
OPTIONAL MATCH (f:FrFact {edge_uuid: edge_uuid})
RETURN r.uuid AS uuid, r.fact AS fact, r.valid_at AS valid_at, r.invalid_at AS invalid_at,
       r.created_at AS created_at, r.expired_at AS expired_at,
       vector.similarity.cosine(r.{lifecycle_vector}, $embedding) * 2 - 1 AS semantic,
       properties(f) AS overlay
