// link_probe_vectors — the vectors of the linker's new facts (probes), the first step of
// its neighbour search on Neo4j, which scores the group's vectors in the client (see
// fr_graph/stores/neo4j.py: link_candidates).
// Params:  $probes: edge uuids of the new facts
// Returns: uuid, vector (null when the fact has none)
UNWIND $probes AS probe
MATCH ()-[p:RELATES_TO {uuid: probe}]->()
RETURN p.uuid AS uuid, p.{lifecycle_vector} AS vector
