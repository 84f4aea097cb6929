// superseded_since — facts superseded at or after $since, newest first, with the newer fact
// that replaced them (FR_SUPERSEDES edge: newer -> older {confidence, at, reason, kind}).
// Soft (contested-only) edges are left out; without an edge, valid_to stands in for the time.
// Params:  $group_id (string): the group
//          $since (time, default now-30d): earliest supersession time
// Returns: superseded_at, category, fact, superseded_by (newer fact's text), kind, reason,
//          confidence, slot_key, uuid, superseded_by_uuid
MATCH (old:FrFact {group_id: $group_id, state: 'superseded'})
OPTIONAL MATCH (old)<-[s:FR_SUPERSEDES]-(newer:FrFact)
WHERE NOT coalesce(s.kind, 'supersede') IN ['soft', 'contradict', 'reverted']
WITH old, s, newer, coalesce(s.at, old.valid_to) AS at
WHERE at >= $since
MATCH ()-[r:RELATES_TO {uuid: old.edge_uuid}]->()
WITH old, s, newer, at, r, coalesce(newer.edge_uuid, '') AS newer_uuid
OPTIONAL MATCH ()-[nr:RELATES_TO {uuid: newer_uuid}]->()
RETURN at AS superseded_at, old.category AS category, r.fact AS fact,
       nr.fact AS superseded_by, s.kind AS kind, s.reason AS reason,
       s.confidence AS confidence, old.slot_key AS slot_key, r.uuid AS uuid,
       newer.edge_uuid AS superseded_by_uuid
ORDER BY superseded_at DESC, uuid
