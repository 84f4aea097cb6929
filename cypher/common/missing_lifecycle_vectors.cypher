// missing_lifecycle_vectors — facts of a group without fr-graph's own vector (written by
// Graphiti, or re-saved by it, which drops properties it does not know), with their text.
// Params:  $group_id, $limit
// Returns: uuid, fact
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id AND r.{lifecycle_vector} IS NULL
RETURN r.uuid AS uuid, r.fact AS fact
LIMIT $limit
