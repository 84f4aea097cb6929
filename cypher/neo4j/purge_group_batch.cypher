// purge_group_batch — delete up to $batch nodes of a group with their relationships
// (DETACH); call until it deletes nothing. Uses each label's group_id index.
// Params:  $group_id, $batch
// Returns: deleted
CALL () {
    MATCH (n:Entity {group_id: $group_id}) RETURN n
    UNION ALL MATCH (n:Episodic {group_id: $group_id}) RETURN n
    UNION ALL MATCH (n:Community {group_id: $group_id}) RETURN n
    UNION ALL MATCH (n:Saga {group_id: $group_id}) RETURN n
    UNION ALL MATCH (n:FrFact {group_id: $group_id}) RETURN n
    UNION ALL MATCH (n:FrRequest {group_id: $group_id}) RETURN n
}
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
