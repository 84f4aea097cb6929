// lifecycle_facts — the stored facts a batch of incoming facts can act on (or be acted on
// by): every fact whose slot key is one of $keys (the incoming keys and their parent keys,
// for retractions of a whole plan) or lies under one of $prefixes (an incoming retraction
// or completion closes the slots under its own), plus the facts named in $edge_uuids.
// Params:  $group_id, $keys: exact slot keys, $prefixes: incoming keys each followed by '|',
//          $edge_uuids: facts wanted whatever their slot (Graphiti invalidated them)
// Returns: edge_uuid, slot_key, category, marker, observed_at, confidence, state, ambiguous,
//          valid_to, slot_source, slot_hint (one row per fact)
UNWIND $keys AS key
MATCH (f:FrFact {group_id: $group_id, slot_key: key})
RETURN f.edge_uuid AS edge_uuid, f.slot_key AS slot_key, f.category AS category,
       f.marker AS marker, f.observed_at AS observed_at, f.confidence AS confidence,
       f.state AS state, f.ambiguous AS ambiguous, f.valid_to AS valid_to,
       f.slot_source AS slot_source, f.slot_hint AS slot_hint
UNION
UNWIND $prefixes AS prefix
MATCH (f:FrFact {group_id: $group_id})
WHERE f.slot_key STARTS WITH prefix
RETURN f.edge_uuid AS edge_uuid, f.slot_key AS slot_key, f.category AS category,
       f.marker AS marker, f.observed_at AS observed_at, f.confidence AS confidence,
       f.state AS state, f.ambiguous AS ambiguous, f.valid_to AS valid_to,
       f.slot_source AS slot_source, f.slot_hint AS slot_hint
UNION
UNWIND $edge_uuids AS edge_uuid
MATCH (f:FrFact {edge_uuid: edge_uuid})
RETURN f.edge_uuid AS edge_uuid, f.slot_key AS slot_key, f.category AS category,
       f.marker AS marker, f.observed_at AS observed_at, f.confidence AS confidence,
       f.state AS state, f.ambiguous AS ambiguous, f.valid_to AS valid_to,
       f.slot_source AS slot_source, f.slot_hint AS slot_hint
