// some_fact_uuid — the uuid of one fact edge, found by a scan (no index): the probe of
// fact_index_lookup needs an edge that certainly exists.
// Params:  none
// Returns: uuid
MATCH ()-[e:RELATES_TO]->()
RETURN e.uuid AS uuid
LIMIT 1
