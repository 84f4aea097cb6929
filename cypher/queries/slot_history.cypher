// slot_history — a slot's version chain: every fact ever stated for one slot key, oldest
// first, with its state and the newer facts that superseded, retracted or completed it
// (FR_SUPERSEDES edges) or only contested it (soft / contradict: both kept, ambiguous).
// Params:  $group_id (string): the group
//          $slot_key (string): the slot, e.g. 'user|diet' (see `fr-graph show`)
// Returns: observed_at, state, fact, valid_from, valid_to, superseded_by, contested_by
//          (lists of newer fact uuids), uuid
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id AND r.fr_slot_key = $slot_key
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})<-[s:FR_SUPERSEDES]-(newer:FrFact)
RETURN r.fr_observed_at AS observed_at, r.fr_state AS state, r.fact AS fact,
       r.fr_valid_from AS valid_from, r.fr_valid_to AS valid_to,
       collect(DISTINCT CASE WHEN s.kind IN ['soft', 'contradict', 'reverted'] THEN null
                             ELSE newer.edge_uuid END) AS superseded_by,
       collect(DISTINCT CASE WHEN s.kind IN ['soft', 'contradict'] THEN newer.edge_uuid END)
           AS contested_by,
       r.uuid AS uuid
ORDER BY observed_at, uuid
