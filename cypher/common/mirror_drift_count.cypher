// mirror_drift_count — how many facts of a group have a stale or missing fr_* mirror.
// Params:  $group_id
// Returns: drifted
MATCH (f:FrFact {group_id: $group_id})
MATCH ()-[r:RELATES_TO {uuid: f.edge_uuid}]->()
WHERE r.fr_revision IS NULL OR r.fr_revision <> f.revision OR r.fr_state IS NULL
   OR r.fr_state <> f.state
RETURN count(r) AS drifted
