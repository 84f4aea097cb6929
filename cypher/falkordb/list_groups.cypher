// list_groups — FalkorDB keeps one graph per group; groups are listed with GRAPH.LIST by
// FalkorStore.list_groups, so this query is unused there. Kept so every dialect answers.
// Params:  none
// Returns: group_id
MATCH ()-[r:RELATES_TO]->()
RETURN DISTINCT r.group_id AS group_id
