// control_facts — the facts a user-control command (recategorize, forget, purge) acts on:
// Graphiti's fields, the endpoints and source episodes, and the overlay's category and state.
// Params:  $group_id, $edge_uuids: list of RELATES_TO uuids
// Returns: uuid, fact, source_uuid, target_uuid, episodes, annotated (an FrFact exists),
//          category, categories, category_weights, state, slot_key, valid_to
UNWIND $edge_uuids AS edge_uuid
MATCH (s)-[r:RELATES_TO {uuid: edge_uuid}]->(t)
WHERE r.group_id = $group_id
OPTIONAL MATCH (f:FrFact {edge_uuid: edge_uuid})
RETURN r.uuid AS uuid, r.fact AS fact, s.uuid AS source_uuid, t.uuid AS target_uuid,
       r.episodes AS episodes, f IS NOT NULL AS annotated, f.category AS category,
       f.categories AS categories, f.category_weights AS category_weights, f.state AS state,
       f.slot_key AS slot_key, f.valid_to AS valid_to
