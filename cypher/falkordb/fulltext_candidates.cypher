// fulltext_candidates — keyword hits from Graphiti's RELATES_TO fulltext index (RediSearch).
// Params:  $query (RediSearch syntax, built by fulltext_query()), $limit
// Returns: uuid, score (raw; normalized per source in Python)
CALL db.idx.fulltext.queryRelationships('RELATES_TO', $query)
YIELD relationship AS r, score
RETURN r.uuid AS uuid, score
ORDER BY score DESC
LIMIT $limit
