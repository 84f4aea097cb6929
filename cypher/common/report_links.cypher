// report_links — the FR_SUPERSEDES and FR_COMPRESSES links between a group's facts, for
// `fr-graph report` (slot chains and transition times); requests (FrRequest) are left out.
// Params:  $group_id
// Returns: relation, kind (FR_SUPERSEDES's kind, else null), newer, older (edge uuids), at
MATCH (a:FrFact {group_id: $group_id})-[l]->(b:FrFact {group_id: $group_id})
WHERE type(l) IN ['FR_SUPERSEDES', 'FR_COMPRESSES']
RETURN type(l) AS relation, l.kind AS kind, a.edge_uuid AS newer, b.edge_uuid AS older,
       l.at AS at
ORDER BY newer, older, relation
