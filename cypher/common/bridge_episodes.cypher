// bridge_episodes — link each surviving episode to the next surviving one over episodes a
// purge deletes, as Graphiti writes NEXT_EPISODE (uuid, group_id, created_at); the bridge
// keeps the created_at of the edge it replaces. Run before the deletion (that edge must
// still exist); MERGE on a stable uuid makes a rerun harmless.
// Params:  $group_id, $bridges: list of {uuid, source, first (the first deleted episode
//          after source), target}
// Returns: bridged
UNWIND $bridges AS bridge
MATCH (p:Episodic {uuid: bridge.source})-[old:NEXT_EPISODE]->(:Episodic {uuid: bridge.first})
MATCH (n:Episodic {uuid: bridge.target})
WHERE n.group_id = $group_id
MERGE (p)-[e:NEXT_EPISODE {uuid: bridge.uuid}]->(n)
SET e.group_id = $group_id, e.created_at = old.created_at
RETURN count(e) AS bridged
