// episode_facts — the facts an episode supports (Graphiti's RELATES_TO.episodes), and how
// many episodes support each: a fact no other episode supports goes with the episode.
// Params:  $group_id, $episode_uuid
// Returns: uuid, sources
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id AND $episode_uuid IN r.episodes
RETURN r.uuid AS uuid, size(r.episodes) AS sources
