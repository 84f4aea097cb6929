// retraction_candidates — facts a retraction may take back when its slot key matched
// nothing: the other facts of the retraction's subject entity whose embedding is close to
// the retraction's (exact cosine; retractions are rare, so a scan of one entity is cheap),
// among its active facts of $categories and its facts with no overlay yet (the retraction's
// own batch). The final choice (category, state, time, shared words, margin) is in Python.
// Params:  $group_id (unused: the graph is the group's), $probes: edge uuids of the
//          retraction facts, $min_cosine,
//          $categories: the plan categories
// Returns: probe, probe_fact, uuid, fact, score (cosine in [-1, 1]), state, category,
//          marker, observed_at, valid_to, ambiguous (the FrFact fields; null for facts
//          without an overlay)
UNWIND $probes AS probe
MATCH (s)-[p:RELATES_TO {uuid: probe}]->()
MATCH (s)-[r:RELATES_TO]->()
WHERE r.uuid <> probe AND r.{lifecycle_vector} IS NOT NULL
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
WITH probe, p, r, f
WHERE f IS NULL OR (f.state = 'active' AND f.category IN $categories)
WITH probe, p, r, f, 1.0 - vec.cosineDistance(r.{lifecycle_vector}, p.{lifecycle_vector}) AS score
WHERE score >= $min_cosine
RETURN probe, p.fact AS probe_fact, r.uuid AS uuid, r.fact AS fact, score,
       f.state AS state, f.category AS category, f.marker AS marker,
       f.observed_at AS observed_at, f.valid_to AS valid_to, f.ambiguous AS ambiguous
