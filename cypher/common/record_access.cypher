// record_access — count one use of each fact (an answer relied on it); maintenance turns new
// accesses into strength growth (StageMem App. E, Eqs. 6-7). The caller re-applies the mirror.
// Params:  $edge_uuids: list of RELATES_TO uuids
// Returns: edge_uuid, access_count
UNWIND $edge_uuids AS edge_uuid
MATCH (f:FrFact {edge_uuid: edge_uuid})
SET f.access_count = coalesce(f.access_count, 0) + 1, f.revision = coalesce(f.revision, 0) + 1
RETURN f.edge_uuid AS edge_uuid, f.access_count AS access_count
