// link_scan — one uuid range of the group's facts the linker may pair with a probe:
// annotated facts and the probes themselves, with what breaks ties between equal scores.
// Their vectors are read once per fact and kept by the client (link_fact_vectors), which
// scores them (see fr_graph/stores/neo4j.py: link_candidates): one cosine per (probe,
// fact) pair in Cypher took 5-10x as long (2,000 facts, 250 probes: 2.7-7.1 s against
// 0.5-0.7 s, BENCHMARKS.md).
// Params:  $group_id, $probes: edge uuids of the new facts, $low, $high: the uuid range
//          [low, high)
// Returns: uuid, valid_at, fact
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id AND r.uuid >= $low AND r.uuid < $high
  AND r.{lifecycle_vector} IS NOT NULL
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
WITH r, f
WHERE f IS NOT NULL OR r.uuid IN $probes
RETURN r.uuid AS uuid, r.valid_at AS valid_at, r.fact AS fact
