// fulltext_candidates — BM25 hits from Graphiti's edge_name_and_fact fulltext index.
// Params:  $group_id, $query (Lucene syntax, already escaped, with a zero-boost group_id
//          clause so Lucene's top hits are the group's), $limit
// Returns: uuid, score (raw Lucene score; normalized per source in Python)
CALL db.index.fulltext.queryRelationships('edge_name_and_fact', $query, {limit: $limit * 4})
YIELD relationship AS r, score
WHERE r.group_id = $group_id
RETURN r.uuid AS uuid, score
ORDER BY score DESC
LIMIT $limit
