// retention_facts — every annotated fact of a group with what settlement needs: the canonical
// overlay, the text, its dependents (other current facts on its target entity, when the
// target is not its source) and its soft contradictions (FR_SUPERSEDES kind 'soft').
// Params:  $group_id
// Returns: edge_uuid, fact, source_uuid, target_uuid, dependents, conflicts, overlay (the
//          FrFact's properties as a map)
MATCH (s)-[r:RELATES_TO]->(t)
WHERE r.group_id = $group_id
MATCH (f:FrFact {edge_uuid: r.uuid})
OPTIONAL MATCH (t)-[o:RELATES_TO]-()
WHERE o.uuid <> r.uuid AND coalesce(o.fr_state, 'active') = 'active'
WITH r, f, s.uuid AS source_uuid, t.uuid AS target_uuid, count(o) AS around
OPTIONAL MATCH (:FrFact)-[x:FR_SUPERSEDES]->(f)
WHERE x.kind IN ['soft', 'contradict']
RETURN r.uuid AS edge_uuid, r.fact AS fact, source_uuid, target_uuid,
       CASE WHEN source_uuid = target_uuid THEN 0 ELSE around END AS dependents,
       count(x) AS conflicts, properties(f) AS overlay
ORDER BY edge_uuid
