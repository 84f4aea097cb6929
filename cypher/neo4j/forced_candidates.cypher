// forced_candidates — category-forced retrieval: the group's most recent facts in the
// categories the query routes to, whatever their wording (bridges vocabulary gaps between
// an abstract query and specific facts; Fortunate Recall §3.3).
// Neo4j: one seek per category on fr_fact_group_category_observed, read newest first from
// the index (ordered by all three of its properties, so the planner takes the index's order
// and stops after $limit entries, where the one-query form sorted every fact of the
// categories: a 100k group 30-51 ms, this 3-4 ms, BENCHMARKS.md). The hint keeps a small
// store's planner off the (group_id, category) index, which would sort again. Every overlay
// has an observed_at (the importer and backfill both write it), which the index needs.
// Params:  $group_id, $categories: list of category values, $limit
// Returns: uuid
UNWIND $categories AS category
CALL (category) {
  MATCH (f:FrFact {group_id: $group_id, category: category})
  USING INDEX f:FrFact(group_id, category, observed_at)
  WHERE f.observed_at IS NOT NULL
  RETURN f
  ORDER BY f.group_id DESC, f.category DESC, f.observed_at DESC
  LIMIT $limit
}
RETURN f.edge_uuid AS uuid
ORDER BY f.observed_at DESC
LIMIT $limit
