// unannotated_edges — every RELATES_TO of a group that has no FrFact overlay yet (what
// backfill still has to do), with the times it is ordered by. Light rows: no text, no vectors.
// Params:  $group_id
// Returns: uuid, valid_at, created_at
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
WITH r, f
WHERE f IS NULL
RETURN r.uuid AS uuid, r.valid_at AS valid_at, r.created_at AS created_at
