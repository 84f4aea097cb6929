// retracted_facts — facts the user took back, newest first, with the retracting statement
// when an FR_SUPERSEDES edge records it.
// Params:  $group_id (string): the group
// Returns: observed_at, category, fact, retracted_at, retracted_by (the retracting fact's
//          text, or null), retracted_by_uuid, slot_key, uuid
MATCH (f:FrFact {group_id: $group_id, state: 'retracted'})
MATCH ()-[r:RELATES_TO {uuid: f.edge_uuid}]->()
OPTIONAL MATCH (f)<-[s:FR_SUPERSEDES]-(by:FrFact)
WHERE coalesce(s.kind, 'retract') = 'retract'
WITH f, r, s, by, coalesce(by.edge_uuid, '') AS by_uuid
OPTIONAL MATCH ()-[br:RELATES_TO {uuid: by_uuid}]->()
RETURN f.observed_at AS observed_at, f.category AS category, r.fact AS fact,
       coalesce(s.at, f.valid_to) AS retracted_at, br.fact AS retracted_by,
       by.edge_uuid AS retracted_by_uuid, f.slot_key AS slot_key, r.uuid AS uuid
ORDER BY observed_at DESC, uuid
