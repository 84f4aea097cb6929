// link_candidates — per new fact (probe), its group's $k + 1 nearest facts by the vector
// index (the probe among them) at or above $min_cosine that are annotated or fellow probes,
// with both texts and vectors and the overlay; one query per batch. Reverted pairs flagged.
// Params:  $group_id (unused: the graph is the group's), $probes: edge uuids of the new
//          facts, $k, $min_cosine
// Returns: probe, probe_fact, probe_embedding, uuid, fact, embedding, score (cosine in
//          [-1, 1]), reverted, then the FrFact fields (null for facts without an overlay)
UNWIND $probes AS probe
MATCH ()-[p:RELATES_TO {uuid: probe}]->()
CALL db.idx.vector.queryRelationships('RELATES_TO', '{lifecycle_vector}', $k + 1, p.{lifecycle_vector})
YIELD relationship AS r
WITH probe, p, r, 1.0 - vec.cosineDistance(r.{lifecycle_vector}, p.{lifecycle_vector}) AS score
WHERE r.uuid <> probe AND score >= $min_cosine
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
WITH probe, p, r, f, score
WHERE f IS NOT NULL OR r.uuid IN $probes
OPTIONAL MATCH (a:FrFact {edge_uuid: probe})-[x:FR_SUPERSEDES {kind: 'reverted'}]-(f)
RETURN probe, p.fact AS probe_fact, p.{lifecycle_vector} AS probe_embedding, r.uuid AS uuid,
       r.fact AS fact, r.{lifecycle_vector} AS embedding, score, x IS NOT NULL AS reverted,
       f.state AS state, f.category AS category, f.marker AS marker,
       f.observed_at AS observed_at, f.valid_to AS valid_to, f.ambiguous AS ambiguous,
       f.confidence AS confidence, f.slot_key AS slot_key, f.slot_source AS slot_source,
       f.slot_hint AS slot_hint, f.world_knowledge AS world_knowledge
