// link_fact_vectors — the vectors of facts the linker's scan (link_scan) found and the
// client does not hold yet (see fr_graph/stores/neo4j.py: FactVectors).
// Params:  $uuids: edge uuids
// Returns: uuid, vector
UNWIND $uuids AS id
MATCH ()-[r:RELATES_TO {uuid: id}]->()
RETURN r.uuid AS uuid, r.{lifecycle_vector} AS vector
