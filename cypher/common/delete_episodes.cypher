// delete_episodes — delete episodes a purge left with no content (DETACH: their MENTIONS,
// HAS_EPISODE and NEXT_EPISODE edges go too) and drop their uuids from the episodes list of
// the group's facts.
// Params:  $group_id, $episode_uuids: list of Episodic uuids
// Returns: facts_updated
UNWIND $episode_uuids AS uuid
MATCH (e:Episodic {uuid: uuid})
WHERE e.group_id = $group_id
DETACH DELETE e
WITH count(*) AS deleted_done
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id AND any(u IN r.episodes WHERE u IN $episode_uuids)
SET r.episodes = [u IN r.episodes WHERE NOT u IN $episode_uuids]
RETURN count(r) AS facts_updated
