// link_rows — the rows of link_candidates for the (probe, fact) pairs the client chose
// (fr_graph/stores/neo4j.py: link_candidates): both texts, the candidate's overlay and
// whether the user reverted the pair. The vectors are the client's already.
// Params:  $hits: [{probe, uuid, score}]
// Returns: probe, probe_fact, uuid, fact, score, reverted, then the FrFact fields (null for
//          facts without an overlay)
UNWIND $hits AS hit
MATCH ()-[p:RELATES_TO {uuid: hit.probe}]->()
MATCH ()-[r:RELATES_TO {uuid: hit.uuid}]->()
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
OPTIONAL MATCH (a:FrFact {edge_uuid: hit.probe})-[x:FR_SUPERSEDES {kind: 'reverted'}]-(f)
RETURN hit.probe AS probe, p.fact AS probe_fact, r.uuid AS uuid, r.fact AS fact,
       hit.score AS score, x IS NOT NULL AS reverted,
       f.state AS state, f.category AS category, f.marker AS marker,
       f.observed_at AS observed_at, f.valid_to AS valid_to, f.ambiguous AS ambiguous,
       f.confidence AS confidence, f.slot_key AS slot_key, f.slot_source AS slot_source,
       f.slot_hint AS slot_hint, f.world_knowledge AS world_knowledge
