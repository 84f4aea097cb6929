// purge_group_sweep — after purge_group_batch: delete up to $batch nodes of any other label
// that still carry the group's id (a full scan; the audit records are kept). Call until it
// deletes nothing.
// Params:  $group_id, $batch
// Returns: deleted
MATCH (n)
WHERE n.group_id = $group_id AND NOT n:FrAudit
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
