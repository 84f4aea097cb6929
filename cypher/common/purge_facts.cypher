// purge_facts — hard-delete facts: their edge uuids leave the entity_edges list of their
// episodes, the RELATES_TO relationships go (with fact_embedding and every index entry),
// then their FrFact overlays (DETACH: FR_SUPERSEDES and FR_REQUESTED edges) and the
// FrRequest nodes that recorded user requests about them. Run relink_purged first.
// Params:  $group_id, $edge_uuids: list of RELATES_TO uuids, $episode_uuids: their episodes
// Returns: overlays (how many FrFact nodes were deleted)
UNWIND $episode_uuids AS uuid
MATCH (e:Episodic {uuid: uuid})
SET e.entity_edges = [u IN coalesce(e.entity_edges, []) WHERE NOT u IN $edge_uuids]
WITH count(*) AS episodes_done
UNWIND $edge_uuids AS edge_uuid
MATCH ()-[r:RELATES_TO {uuid: edge_uuid}]->()
WHERE r.group_id = $group_id
DELETE r
WITH count(*) AS edges_done
UNWIND $edge_uuids AS edge_uuid
MATCH (q:FrRequest)-->(f:FrFact {edge_uuid: edge_uuid})
DETACH DELETE q
WITH count(*) AS requests_done
UNWIND $edge_uuids AS edge_uuid
MATCH (f:FrFact {edge_uuid: edge_uuid})
DETACH DELETE f
RETURN count(*) AS overlays
