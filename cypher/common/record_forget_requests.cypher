// record_forget_requests — the transition edge of a retraction the user asked for: an
// (:FrRequest {action: 'forget'}) node per fact, linked like a retracting statement by
// FR_SUPERSEDES {kind: 'retract', confidence: 1.0, at, reason: 'user request'}. MERGEd on
// the request uuid (one per fact), so a re-run after a crash completes it and never doubles it.
// Params:  $group_id, $requests: list of {request_uuid, edge_uuid}, $at (ISO time string),
//          $reason: the user's reason (or null)
// Returns: edge_uuid (one row per fact linked)
UNWIND $requests AS req
MATCH (f:FrFact {edge_uuid: req.edge_uuid})
MERGE (q:FrRequest {uuid: req.request_uuid})
SET q.group_id = $group_id, q.action = 'forget', q.at = $at, q.reason = $reason
MERGE (q)-[s:FR_SUPERSEDES]->(f)
SET s.kind = 'retract', s.confidence = 1.0, s.at = $at, s.reason = 'user request'
RETURN f.edge_uuid AS edge_uuid
