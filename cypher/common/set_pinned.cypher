// set_pinned — pin or unpin one fact (a pinned fact keeps at least the pin strength and is
// never compressed, evicted or demoted). The caller re-applies the mirror (apply_mirror).
// Params:  $edge_uuid; $pinned: true or false
// Returns: edge_uuid, pinned, state, stage
MATCH (f:FrFact {edge_uuid: $edge_uuid})
SET f.pinned = $pinned, f.revision = coalesce(f.revision, 0) + 1
RETURN f.edge_uuid AS edge_uuid, f.pinned AS pinned, f.state AS state, f.stage AS stage
