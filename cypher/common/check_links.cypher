// check_links — every lifecycle link that touches a group, for `fr-graph check`
// (fr_graph.core.invariants): the FR_SUPERSEDES, FR_COMPRESSES and FR_REQUESTED
// relationships leaving the group's FrFact and FrRequest nodes, then those entering its
// FrFact nodes from any other node (another group's, or one that is no lifecycle node).
// Both ends come as they are (uuid, labels, group), so a link whose end is not a live fact
// of the group can be reported: an FrFact whose RELATES_TO is gone, one of another group,
// or a node of another kind.
// Params:  $group_id
// Returns: relation (the relationship type), kind (FR_SUPERSEDES's kind, else null),
//          source_uuid, source_labels, source_group, target_uuid, target_labels,
//          target_group (a node's uuid is an FrFact's edge_uuid, else its uuid)
MATCH (a:FrFact {group_id: $group_id})-[l]->(b)
WHERE type(l) IN ['FR_SUPERSEDES', 'FR_COMPRESSES', 'FR_REQUESTED']
RETURN type(l) AS relation, l.kind AS kind,
       coalesce(a.edge_uuid, a.uuid) AS source_uuid, labels(a) AS source_labels,
       a.group_id AS source_group, coalesce(b.edge_uuid, b.uuid) AS target_uuid,
       labels(b) AS target_labels, b.group_id AS target_group
UNION ALL
MATCH (a:FrRequest {group_id: $group_id})-[l]->(b)
WHERE type(l) IN ['FR_SUPERSEDES', 'FR_COMPRESSES', 'FR_REQUESTED']
RETURN type(l) AS relation, l.kind AS kind,
       coalesce(a.edge_uuid, a.uuid) AS source_uuid, labels(a) AS source_labels,
       a.group_id AS source_group, coalesce(b.edge_uuid, b.uuid) AS target_uuid,
       labels(b) AS target_labels, b.group_id AS target_group
UNION ALL
MATCH (a)-[l]->(b:FrFact {group_id: $group_id})
WHERE type(l) IN ['FR_SUPERSEDES', 'FR_COMPRESSES', 'FR_REQUESTED']
  AND NOT coalesce((a:FrFact OR a:FrRequest) AND a.group_id = $group_id, false)
RETURN type(l) AS relation, l.kind AS kind,
       coalesce(a.edge_uuid, a.uuid) AS source_uuid, labels(a) AS source_labels,
       a.group_id AS source_group, coalesce(b.edge_uuid, b.uuid) AS target_uuid,
       labels(b) AS target_labels, b.group_id AS target_group
