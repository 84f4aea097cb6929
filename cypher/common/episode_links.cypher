// episode_links — Graphiti's NEXT_EPISODE edges into or out of the given episodes (a purge
// is about to delete them and bridges the saga's episode chain over them).
// Params:  $group_id, $episode_uuids: list of Episodic uuids
// Returns: source_uuid, target_uuid
MATCH (a:Episodic)-[:NEXT_EPISODE]->(b:Episodic)
WHERE a.group_id = $group_id AND (a.uuid IN $episode_uuids OR b.uuid IN $episode_uuids)
RETURN a.uuid AS source_uuid, b.uuid AS target_uuid
