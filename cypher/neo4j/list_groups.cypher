// list_groups — every group that holds Graphiti facts.
// Params:  none
// Returns: group_id
MATCH ()-[r:RELATES_TO]->()
RETURN DISTINCT r.group_id AS group_id
ORDER BY group_id
