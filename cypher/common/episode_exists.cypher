// episode_exists — whether the group holds an episode with this uuid.
// Params:  $group_id, $episode_uuid
// Returns: uuid
MATCH (e:Episodic {uuid: $episode_uuid})
WHERE e.group_id = $group_id
RETURN e.uuid AS uuid
