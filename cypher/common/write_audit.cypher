// write_audit — one append-only audit record of a purge: ids, time and reason, never the
// content. Runs on the audit scope (fr-graph's own graph on FalkorDB, whose group graphs a
// purge may delete; the database on Neo4j).
// Params:  $id, $action ('purge' or 'purge_group'), $group_id, $target_uuids (list),
//          $facts (how many facts were deleted), $at (ISO time string), $reason (or null)
// Returns: id
CREATE (a:FrAudit {id: $id, action: $action, group_id: $group_id,
                   target_uuids: $target_uuids, facts: $facts, at: $at, reason: $reason})
RETURN a.id AS id
