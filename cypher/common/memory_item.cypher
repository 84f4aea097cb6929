// memory_item — one fact with its category and lifecycle state, in memory_listing's columns
// (state and category are null when it has no overlay yet).
// Params:  $uuid: the RELATES_TO uuid
// Returns: uuid, fact, category, categories, category_weights, state, slot_key,
//          observed_at, event_time, valid_to, source_id, source_span, created_at
MATCH ()-[r:RELATES_TO {uuid: $uuid}]->()
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
RETURN r.uuid AS uuid, r.fact AS fact, f.category AS category, f.categories AS categories,
       f.category_weights AS category_weights, f.state AS state, f.slot_key AS slot_key,
       f.observed_at AS observed_at, f.event_time AS event_time, f.valid_to AS valid_to,
       f.source_id AS source_id, f.source_span AS source_span, r.created_at AS created_at
