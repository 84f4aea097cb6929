// audit_records — the purge audit, oldest first (ids, time and reason; no content).
// Params:  $group_id: one group, or null for all
// Returns: id, action, group_id, target_uuids, facts, at, reason
MATCH (a:FrAudit)
WHERE $group_id IS NULL OR a.group_id = $group_id
RETURN a.id AS id, a.action AS action, a.group_id AS group_id,
       a.target_uuids AS target_uuids, a.facts AS facts, a.at AS at, a.reason AS reason
ORDER BY at, id
