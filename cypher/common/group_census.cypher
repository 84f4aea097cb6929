// group_census — fact counts by lifecycle state and category, plus unannotated facts.
// Params:  $group_id
// Returns: state, category, facts (state and category are null for facts with no overlay)
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
RETURN f.state AS state, f.category AS category, count(r) AS facts
