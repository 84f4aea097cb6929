// link_index_scan — the facts the linker may pair with a batch of probes in a large group,
// from the group-filtered vector index (Neo4j 2026.01+, an index made by
// fact_vector_index_filtered): each probe's $hits nearest facts of the group by the index's
// walk, and the probes themselves (new facts the index may not hold yet). Same columns as
// link_scan; the client reads their vectors and scores them exactly (see
// fr_graph/stores/neo4j.py: link_candidates). Approximate: a neighbour the walk misses is
// not judged. Used only past LINK_INDEX_MIN_FACTS, where scanning the group cost 30 s per
// batch of 250 probes at 100k facts (BENCHMARKS.md).
// Params:  $group_id, $probes: edge uuids of the new facts, $hits: index hits per probe
// Returns: uuid, valid_at, fact
CYPHER 25
UNWIND $probes AS probe
MATCH ()-[p:RELATES_TO {uuid: probe}]->()
WHERE p.group_id = $group_id AND p.{lifecycle_vector} IS NOT NULL
CALL (p) {
  WITH p.{lifecycle_vector} AS vector
  MATCH ()-[r:RELATES_TO]->()
    SEARCH r IN (
      VECTOR INDEX fr_fact_embedding
      FOR vector
      WHERE r.group_id = $group_id
      LIMIT $hits
    ) SCORE AS index_score
  RETURN r
  UNION
  RETURN p AS r
}
WITH DISTINCT r
WHERE r.{lifecycle_vector} IS NOT NULL
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
WITH r, f
WHERE f IS NOT NULL OR r.uuid IN $probes
RETURN r.uuid AS uuid, r.valid_at AS valid_at, r.fact AS fact
