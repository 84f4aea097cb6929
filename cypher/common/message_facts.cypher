// message_facts — what one message produced: the facts whose source_id is
// "<message id>#<part>" (offline extraction) or "<message id>#<edge uuid>" (add_episode),
// in the columns of memory_listing plus each fact's sentence span in its episode.
// Params:  $group_id; $prefix: the message id followed by '#'
// Returns: uuid, fact, category, categories, category_weights, state, slot_key,
//          observed_at, event_time, valid_to, source_id, source_span, created_at
MATCH (f:FrFact)
WHERE f.group_id = $group_id AND f.source_id STARTS WITH $prefix
MATCH ()-[r:RELATES_TO {uuid: f.edge_uuid}]->()
RETURN r.uuid AS uuid, r.fact AS fact, f.category AS category, f.categories AS categories,
       f.category_weights AS category_weights, f.state AS state, f.slot_key AS slot_key,
       f.observed_at AS observed_at, f.event_time AS event_time, f.valid_to AS valid_to,
       f.source_id AS source_id, f.source_span AS source_span, r.created_at AS created_at
