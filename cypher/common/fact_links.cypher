// fact_links — the FR_SUPERSEDES edges touching one fact, both ways: newer facts that
// superseded or retracted it, and older facts it superseded. Edges point newer -> older.
// A retraction the user asked for (`fr-graph forget`) comes from an FrRequest node: its
// row has the request uuid, the text 'user request (fr-graph forget)' and no state.
// Params:  $uuid: the RELATES_TO uuid (= FrFact.edge_uuid)
// Returns: direction ('superseded_by' or 'supersedes'), uuid, fact, state, confidence, at,
//          reason, kind
MATCH (f:FrFact {edge_uuid: $uuid})<-[s:FR_SUPERSEDES]-(o:FrFact)
OPTIONAL MATCH ()-[r:RELATES_TO {uuid: o.edge_uuid}]->()
RETURN 'superseded_by' AS direction, o.edge_uuid AS uuid, r.fact AS fact, o.state AS state,
       s.confidence AS confidence, s.at AS at, s.reason AS reason, s.kind AS kind
UNION ALL
MATCH (f:FrFact {edge_uuid: $uuid})-[s:FR_SUPERSEDES]->(o:FrFact)
OPTIONAL MATCH ()-[r:RELATES_TO {uuid: o.edge_uuid}]->()
RETURN 'supersedes' AS direction, o.edge_uuid AS uuid, r.fact AS fact, o.state AS state,
       s.confidence AS confidence, s.at AS at, s.reason AS reason, s.kind AS kind
UNION ALL
MATCH (f:FrFact {edge_uuid: $uuid})<-[s:FR_SUPERSEDES]-(q:FrRequest)
RETURN 'superseded_by' AS direction, q.uuid AS uuid,
       'user request (fr-graph ' + q.action + ')' AS fact, null AS state,
       s.confidence AS confidence, s.at AS at, s.reason AS reason, s.kind AS kind
