// schema — fr-graph's constraints and indexes on Neo4j (a statement list, run in order;
// every statement is idempotent). Graphiti's own indexes are created by Graphiti; the facts'
// vector index by fact_vector_index or fact_vector_index_filtered, by server version.
// Params:  none
// Returns: nothing
CREATE CONSTRAINT fr_fact_edge_uuid IF NOT EXISTS FOR (f:FrFact) REQUIRE f.edge_uuid IS UNIQUE;
CREATE CONSTRAINT fr_lock_group IF NOT EXISTS FOR (l:FrLock) REQUIRE l.group_id IS UNIQUE;
CREATE INDEX fr_fact_group_source IF NOT EXISTS FOR (f:FrFact) ON (f.group_id, f.source_id);
CREATE INDEX fr_fact_group_slot IF NOT EXISTS FOR (f:FrFact) ON (f.group_id, f.slot_key);
CREATE INDEX fr_fact_group_state IF NOT EXISTS FOR (f:FrFact) ON (f.group_id, f.state);
CREATE INDEX fr_fact_group_category IF NOT EXISTS FOR (f:FrFact) ON (f.group_id, f.category);
CREATE INDEX fr_fact_group_category_observed IF NOT EXISTS FOR (f:FrFact) ON (f.group_id, f.category, f.observed_at);
CREATE INDEX fr_rel_state IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.fr_state);
CREATE INDEX fr_rel_category IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.fr_category);
CREATE INDEX fr_rel_slot_key IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.fr_slot_key);
CREATE INDEX fr_rel_event_time IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.fr_event_time);
CREATE INDEX fr_rel_source_id IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.fr_source_id);
CREATE INDEX fr_rel_stage IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.fr_stage);
CREATE INDEX fr_rel_group_uuid IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.group_id, r.uuid);
