// report_facts — every annotated fact of a group with its text, for `fr-graph report`
// (fr_graph.core.report): the FrFact's canonical fields and the RELATES_TO's fact text
// (null when the edge is gone).
// Params:  $group_id
// Returns: uuid, fact, overlay (the FrFact's properties as a map)
MATCH (f:FrFact {group_id: $group_id})
OPTIONAL MATCH ()-[r:RELATES_TO {uuid: f.edge_uuid}]->()
RETURN f.edge_uuid AS uuid, r.fact AS fact, properties(f) AS overlay
ORDER BY uuid
