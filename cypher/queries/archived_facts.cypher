// archived_facts — facts maintenance archived (evicted or compressed), newest first, with
// the state `fr-graph restore` returns them to and the summary that compresses them.
// Params:  $group_id (string): the group
// Returns: settled_at, stage, category, fact, archived_from, compressed_into (the summary's
//          text, or null when evicted), compressed_into_uuid, strength, confidence, uuid
MATCH (f:FrFact {group_id: $group_id, state: 'archived'})
MATCH ()-[r:RELATES_TO {uuid: f.edge_uuid}]->()
OPTIONAL MATCH (f)<-[:FR_COMPRESSES]-(s:FrFact)
WITH f, r, s, coalesce(s.edge_uuid, '') AS summary_uuid
OPTIONAL MATCH ()-[sr:RELATES_TO {uuid: summary_uuid}]->()
RETURN f.settled_at AS settled_at, f.stage AS stage, f.category AS category, r.fact AS fact,
       f.archived_from AS archived_from, sr.fact AS compressed_into,
       s.edge_uuid AS compressed_into_uuid, f.strength AS strength,
       f.confidence AS confidence, r.uuid AS uuid
ORDER BY settled_at DESC, uuid
