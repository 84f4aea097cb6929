// message_episode — the episode that keeps a message's whole text.
// Params:  $group_id, $episode_uuid
// Returns: uuid, name, content, source_description, pasted_regions ("kind:start:end" list)
MATCH (e:Episodic {uuid: $episode_uuid})
WHERE e.group_id = $group_id
RETURN e.uuid AS uuid, e.name AS name, e.content AS content,
       e.source_description AS source_description, e.fr_pasted_regions AS pasted_regions
