// compressed_into — the summary facts (retention compression, FR_COMPRESSES summary ->
// original) that hold purged facts' text verbatim, with the texts of their other originals
// so that each can be rebuilt without the purged ones.
// Params:  $edge_uuids: the facts being purged
// Returns: summary_uuid, category, kept (the other originals' texts, oldest first; empty
//          when the summary compresses nothing else)
UNWIND $edge_uuids AS edge_uuid
MATCH (s:FrFact)-[:FR_COMPRESSES]->(:FrFact {edge_uuid: edge_uuid})
WITH DISTINCT s
OPTIONAL MATCH (s)-[:FR_COMPRESSES]->(o:FrFact)
WHERE NOT o.edge_uuid IN $edge_uuids
WITH s, o, coalesce(o.edge_uuid, '') AS original
OPTIONAL MATCH ()-[r:RELATES_TO {uuid: original}]->()
WITH s, o, r
ORDER BY o.observed_at, o.edge_uuid
RETURN s.edge_uuid AS summary_uuid, s.category AS category, collect(r.fact) AS kept
