// link_candidates — per new fact (probe), its group's $k nearest annotated facts or fellow
// probes by exact cosine (ties: newest first) at or above $min_cosine, with both texts and
// vectors and the candidate's overlay; one query per batch. Reverted pairs are flagged.
// Params:  $group_id, $probes: edge uuids of the new facts, $k, $min_cosine
// Returns: probe, probe_fact, probe_embedding, uuid, fact, embedding, score (cosine in
//          [-1, 1]), reverted, then the FrFact fields (null for facts without an overlay)
// Each group fact's vector is read once and scored against every probe in a list: reading
// it once per probe made this query 2-3x slower (250 probes x 2,000 facts: 9-13 s against
// 4-7 s). The probes' scores are listed per fact, not unwound with the vector beside them,
// so the rows the sort keeps hold no vector (else the transaction memory limit is reached
// when most pairs pass $min_cosine).
UNWIND $probes AS probe
MATCH ()-[p:RELATES_TO {uuid: probe}]->()
WITH collect({uuid: probe, vector: p.{lifecycle_vector}}) AS probes
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id
WITH probes, r, r.{lifecycle_vector} AS vector
WITH r, [probe IN probes | {uuid: probe.uuid,
         score: vector.similarity.cosine(vector, probe.vector) * 2 - 1}] AS scored
UNWIND scored AS scoring
WITH scoring.uuid AS probe, r, scoring.score AS score
WHERE score >= $min_cosine AND r.uuid <> probe
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
WITH probe, r, f, score
WHERE f IS NOT NULL OR r.uuid IN $probes
// Ties (equal vectors) go to the most recent fact, then the text: the same neighbours on
// every rerun and in every group.
WITH probe, r, f, score ORDER BY score DESC, r.valid_at DESC, r.fact, r.uuid
WITH probe, collect({r: r, f: f, score: score})[..$k] AS hits
MATCH ()-[p:RELATES_TO {uuid: probe}]->()
UNWIND hits AS hit
WITH probe, p, hit.r AS r, hit.f AS f, hit.score AS score
OPTIONAL MATCH (a:FrFact {edge_uuid: probe})-[x:FR_SUPERSEDES {kind: 'reverted'}]-(f)
RETURN probe, p.fact AS probe_fact, p.{lifecycle_vector} AS probe_embedding, r.uuid AS uuid,
       r.fact AS fact, r.{lifecycle_vector} AS embedding, score, x IS NOT NULL AS reverted,
       f.state AS state, f.category AS category, f.marker AS marker,
       f.observed_at AS observed_at, f.valid_to AS valid_to, f.ambiguous AS ambiguous,
       f.confidence AS confidence, f.slot_key AS slot_key, f.slot_source AS slot_source,
       f.slot_hint AS slot_hint, f.world_knowledge AS world_knowledge
