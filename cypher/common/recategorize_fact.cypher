// recategorize_fact — the user sets a fact's category: the FrFact gets the new category and
// weights (revision + 1), an (:FrRequest {action: 'recategorize'}) node records
// when, why and the category before, linked by FR_REQUESTED to the fact. Run apply_mirror
// after it, in the same transaction.
// Params:  $edge_uuid, $group_id, $request_uuid, $category, $categories (list),
//          $category_weights (list, parallel), $at (ISO time string), $reason (or null)
// Returns: edge_uuid, previous (the category before), revision
MATCH (f:FrFact {edge_uuid: $edge_uuid})
WITH f, f.category AS previous
SET f.category = $category, f.categories = $categories,
    f.category_weights = $category_weights, f.revision = coalesce(f.revision, 0) + 1
MERGE (q:FrRequest {uuid: $request_uuid})
SET q.group_id = $group_id, q.action = 'recategorize', q.at = $at, q.reason = $reason,
    q.from_category = previous, q.to_category = $category
MERGE (q)-[:FR_REQUESTED]->(f)
RETURN f.edge_uuid AS edge_uuid, previous, f.revision AS revision
