// restore_fact — bring an archived fact back to the state it had before archival
// (archived_from; 'active' when unknown). A fact that is not archived is left as it is.
// Also says what restore must respect: whether a forget request of the user retracts the
// fact, and the facts the user already kept beside it (reverted links, either direction).
// The caller decides the fact's slot again and re-applies the mirror.
// Params:  $edge_uuid
// Returns: edge_uuid, state (after), was_archived, stage, slot_key, forgotten (a forget
//          request's retract link points at it), reverted_with (edge uuids)
MATCH (f:FrFact {edge_uuid: $edge_uuid})
OPTIONAL MATCH (f)-[x:FR_SUPERSEDES]-(o:FrFact)
WHERE x.kind = 'reverted'
WITH f, collect(DISTINCT o.edge_uuid) AS reverted_with
OPTIONAL MATCH (f)<-[q:FR_SUPERSEDES]-(:FrRequest)
WHERE q.kind = 'retract'
WITH f, reverted_with, count(q) > 0 AS forgotten, f.state = 'archived' AS was_archived
SET f.state = CASE WHEN was_archived THEN coalesce(f.archived_from, 'active') ELSE f.state END,
    f.archived_from = CASE WHEN was_archived THEN null ELSE f.archived_from END,
    f.revision = coalesce(f.revision, 0) + CASE WHEN was_archived THEN 1 ELSE 0 END
RETURN f.edge_uuid AS edge_uuid, f.state AS state, was_archived, f.stage AS stage,
       f.slot_key AS slot_key, forgotten, reverted_with
