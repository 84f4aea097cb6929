// fact_index_lookup — Graphiti's shape of an indexed fact lookup: endpoints labelled Entity,
// the edge found through its index. After a reload FalkorDB 4.22 answers it with no rows
// (see "FalkorDB after a reload" in README.md); fr-graph probes with it on open.
// Params:  $uuid (string)
// Returns: found (int)
MATCH (:Entity)-[e:RELATES_TO]->(:Entity)
WHERE e.uuid = $uuid
RETURN count(e) AS found
