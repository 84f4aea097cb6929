// graph_node_count — how many nodes the group's graph holds (reported by a group purge,
// which then deletes the whole graph).
// Params:  none
// Returns: nodes
MATCH (n)
RETURN count(n) AS nodes
