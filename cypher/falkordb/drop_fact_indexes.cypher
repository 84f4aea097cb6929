// drop_fact_indexes — drop every index field on RELATES_TO that Graphiti and fr-graph create
// (a statement list, run in order), so the edge index is built anew; see "FalkorDB after a
// reload" in README.md. A field that is not indexed raises an error, which the store ignores.
// Params:  none
// Returns: nothing
DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.uuid);
DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.group_id);
DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.name);
DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.created_at);
DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.expired_at);
DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.valid_at);
DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.invalid_at);
DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.fr_state);
DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.fr_category);
DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.fr_slot_key);
DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.fr_event_time);
DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.fr_source_id);
DROP INDEX FOR ()-[e:RELATES_TO]-() ON (e.fr_stage);
DROP FULLTEXT INDEX FOR ()-[e:RELATES_TO]-() ON (e.name);
DROP FULLTEXT INDEX FOR ()-[e:RELATES_TO]-() ON (e.fact);
DROP FULLTEXT INDEX FOR ()-[e:RELATES_TO]-() ON (e.group_id);
DROP VECTOR INDEX FOR ()-[e:RELATES_TO]-() ON (e.{lifecycle_vector});
