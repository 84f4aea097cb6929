// link_candidates — for each new fact (probe), the facts of its group closest to it in
// meaning: exact cosine over the group, the $k best at or above $min_cosine, with both
// texts and vectors (the verifier reads them) and the candidate's overlay. One query per
// batch. Candidates the user reverted a link with are flagged, never re-linked.
// Params:  $group_id, $probes: edge uuids of the new facts, $k, $min_cosine
// Returns: probe, probe_fact, probe_embedding, uuid, fact, embedding, score (cosine in
//          [-1, 1]), reverted, then the FrFact fields (null for facts without an overlay)
UNWIND $probes AS probe
MATCH ()-[p:RELATES_TO {uuid: probe}]->()
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id AND r.uuid <> probe
WITH probe, p, r, vector.similarity.cosine(r.fact_embedding, p.fact_embedding) * 2 - 1 AS score
WHERE score >= $min_cosine
WITH probe, p, r, score ORDER BY score DESC
WITH probe, p, collect({r: r, score: score})[..$k] AS hits
UNWIND hits AS hit
WITH probe, p, hit.r AS r, hit.score AS score
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
OPTIONAL MATCH (a:FrFact {edge_uuid: probe})-[x:FR_SUPERSEDES {kind: 'reverted'}]-(f)
RETURN probe, p.fact AS probe_fact, p.fact_embedding AS probe_embedding, r.uuid AS uuid,
       r.fact AS fact, r.fact_embedding AS embedding, score, x IS NOT NULL AS reverted,
       f.state AS state, f.category AS category, f.marker AS marker,
       f.observed_at AS observed_at, f.valid_to AS valid_to, f.ambiguous AS ambiguous,
       f.confidence AS confidence, f.slot_key AS slot_key, f.slot_source AS slot_source,
       f.slot_hint AS slot_hint, f.world_knowledge AS world_knowledge
