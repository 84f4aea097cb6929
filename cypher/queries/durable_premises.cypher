// durable_premises — the facts settlement made durable (the premises ranking protects from
// decay), strongest first.
// Params:  $group_id (string): the group
//          $min_strength (number, default 0.0): only facts at least this strong
// Returns: strength, confidence, pinned, category, fact, state, settled_at, observed_at, uuid
MATCH (f:FrFact {group_id: $group_id, stage: 'durable'})
WHERE f.state <> 'archived' AND f.strength >= $min_strength
MATCH ()-[r:RELATES_TO {uuid: f.edge_uuid}]->()
RETURN f.strength AS strength, f.confidence AS confidence,
       coalesce(f.pinned, false) AS pinned, f.category AS category, r.fact AS fact,
       f.state AS state, f.settled_at AS settled_at, f.observed_at AS observed_at,
       r.uuid AS uuid
ORDER BY strength DESC, observed_at DESC, uuid
