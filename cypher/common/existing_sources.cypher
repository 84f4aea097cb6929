// existing_sources — which imported record ids already have a fact in the group.
// Params:  $group_id, $source_ids: list of record ids
// Returns: source_id, edge_uuid
MATCH (f:FrFact {group_id: $group_id})
WHERE f.source_id IN $source_ids
RETURN f.source_id AS source_id, f.edge_uuid AS edge_uuid
