// revert_links — undo the automatic links that act on one fact (the user says the linker
// was wrong): every FR_SUPERSEDES from another fact into it (supersede, retract, complete,
// soft, contradict) becomes kind 'reverted' with the old kind and reason kept, and the fact
// is active again with its validity open, neither ambiguous nor contested, out of a slot it
// only had through linking, and its Graphiti invalid_at / expired_at cleared. A user's own forget request
// (from an FrRequest) is not automatic: the caller does not revert a forgotten fact. The
// caller keeps the fact beside its slot's other active facts (keep_beside) and re-applies
// the mirror.
// Params:  $edge_uuid, $at: ISO-8601 time of the request, $reason
// Returns: edge_uuid, state (after), reverted (links turned), partners (the facts whose
//          links were turned), slot_key (after); no row when nothing to undo
MATCH (f:FrFact {edge_uuid: $edge_uuid})<-[s:FR_SUPERSEDES]-(n:FrFact)
WHERE s.kind IN ['supersede', 'retract', 'complete', 'soft', 'contradict']
  AND f.state IN ['active', 'superseded', 'retracted']
SET s.reason = $reason + ' (was ' + s.kind + ': ' + coalesce(s.reason, '') + ')',
    s.reverted_kind = s.kind, s.reverted_at = $at, s.kind = 'reverted'
WITH f, count(s) AS reverted, collect(n.edge_uuid) AS partners
SET f.state = 'active', f.valid_to = null, f.ambiguous = false, f.contested = 0.0,
    f.slot_key = CASE WHEN f.slot_source = 'linked' THEN null ELSE f.slot_key END,
    f.slot_source = CASE WHEN f.slot_source = 'linked' THEN 'inferred' ELSE f.slot_source END,
    f.revision = coalesce(f.revision, 0) + 1
WITH f, reverted, partners
MATCH ()-[r:RELATES_TO {uuid: f.edge_uuid}]->()
SET r.invalid_at = null, r.expired_at = null
RETURN f.edge_uuid AS edge_uuid, f.state AS state, reverted, partners,
       f.slot_key AS slot_key
