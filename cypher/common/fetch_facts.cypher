// fetch_facts — full rows for candidate facts: Graphiti's fields and the canonical overlay.
// Params:  $group_id, $edge_uuids: list of RELATES_TO uuids
// Returns: uuid, fact, valid_at, invalid_at, created_at, expired_at, embedding, overlay
//          (the FrFact node's properties as a map, null for unannotated facts)
// No endpoint labels: embedded FalkorDB 4.22 answers (s:Entity)-[r]->(t:Entity) with an
// index filter on r with nothing after a reload, while ()-[r]->() is right.
MATCH ()-[r:RELATES_TO]->()
WHERE r.uuid IN $edge_uuids AND r.group_id = $group_id
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
RETURN r.uuid AS uuid, r.fact AS fact, r.valid_at AS valid_at, r.invalid_at AS invalid_at,
       r.created_at AS created_at, r.expired_at AS expired_at,
       r.fact_embedding AS embedding, properties(f) AS overlay
