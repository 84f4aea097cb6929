// schema — fr-graph's indexes on one FalkorDB graph (a statement list, run in order).
// Graphiti's own indexes are created by Graphiti. efRuntime 100: the default (10) finds few
// of the true nearest neighbours. Statements that already exist raise
// "already indexed", which the store ignores.
// Params:  none; {embedding_dim} is substituted with the configured integer dimension.
// Returns: nothing
CREATE INDEX FOR (f:FrFact) ON (f.edge_uuid, f.group_id, f.source_id, f.slot_key, f.state);
CREATE INDEX FOR (f:FrFact) ON (f.category);
CREATE INDEX FOR ()-[r:RELATES_TO]-() ON (r.fr_state, r.fr_category, r.fr_slot_key, r.fr_event_time, r.fr_source_id, r.fr_stage);
CREATE VECTOR INDEX FOR ()-[r:RELATES_TO]-() ON (r.{lifecycle_vector}) OPTIONS {dimension: {embedding_dim}, similarityFunction: 'cosine', efRuntime: 100};
