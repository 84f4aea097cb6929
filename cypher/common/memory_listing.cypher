// memory_listing — every fact of a group with its category and lifecycle state (for
// `fr-graph show`); facts without an overlay come back with null category and state.
// Params:  $group_id; $state: one state or null for all; $category: one category or null
// Returns: uuid, fact, category, categories, category_weights, state, slot_key,
//          observed_at, event_time, valid_to, source_id, source_span, created_at
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
WITH r, f
WHERE ($state IS NULL OR f.state = $state) AND ($category IS NULL OR f.category = $category)
RETURN r.uuid AS uuid, r.fact AS fact, f.category AS category, f.categories AS categories,
       f.category_weights AS category_weights, f.state AS state, f.slot_key AS slot_key,
       f.observed_at AS observed_at, f.event_time AS event_time, f.valid_to AS valid_to,
       f.source_id AS source_id, f.source_span AS source_span, r.created_at AS created_at
