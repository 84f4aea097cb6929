// link_graphiti_invalidations — record Graphiti's own contradiction handling as supersession
// edges. Graphiti sets the old edge's invalid_at to the valid_at of the edge that
// contradicted it; a superseded fact with no incoming hard FR_SUPERSEDES whose edge has
// invalid_at is linked from a fact whose edge shares an endpoint and has that valid_at.
// Several can (a user entity joins every fact; one message dates all its facts alike), so
// the likeliest wins: same slot key, then same relation name, then same category.
// Idempotent (MERGE) and group-wide, so a re-run after a crash links what is missing.
// Params:  $group_id
// Returns: older, newer (the edge uuids of each link written)
MATCH (old:FrFact {group_id: $group_id, state: 'superseded'})
OPTIONAL MATCH (:FrFact)-[hard:FR_SUPERSEDES]->(old)
WHERE NOT hard.kind IN ['soft', 'contradict', 'reverted']
WITH old, count(hard) AS links
WHERE links = 0
MATCH (a)-[ro:RELATES_TO {uuid: old.edge_uuid}]->(b)
WHERE ro.invalid_at IS NOT NULL
UNWIND [a, b] AS endpoint
MATCH (endpoint)-[rn:RELATES_TO]-()
WHERE rn.uuid <> ro.uuid AND rn.valid_at = ro.invalid_at
MATCH (candidate:FrFact {edge_uuid: rn.uuid})
WITH old, candidate,
     CASE WHEN candidate.slot_key = old.slot_key THEN 4 ELSE 0 END
     + CASE WHEN rn.name = ro.name THEN 2 ELSE 0 END
     + CASE WHEN candidate.category = old.category THEN 1 ELSE 0 END AS affinity
ORDER BY affinity DESC, candidate.edge_uuid
WITH old, collect(candidate.edge_uuid)[0] AS newer_uuid
MATCH (new:FrFact {edge_uuid: newer_uuid})
MERGE (new)-[s:FR_SUPERSEDES]->(old)
SET s.kind = 'supersede', s.confidence = new.confidence, s.at = new.observed_at,
    s.reason = 'Graphiti invalidated it: its invalid_at is the valid_at of the newer fact'
RETURN old.edge_uuid AS older, new.edge_uuid AS newer
