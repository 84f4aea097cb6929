// forced_candidates — category-forced retrieval: the group's most recent facts in the
// categories the query routes to, whatever their wording (bridges vocabulary gaps between
// an abstract query and specific facts; Fortunate Recall §3.3).
// Params:  $group_id, $categories: list of category values, $limit
// Returns: uuid
MATCH (f:FrFact {group_id: $group_id})
WHERE f.category IN $categories
RETURN f.edge_uuid AS uuid
ORDER BY f.observed_at DESC
LIMIT $limit
