// fact_vector_index_filtered — the facts' vector index on Neo4j 2026.01+, holding group_id
// beside the vector so that a search filters by group inside the index
// (vector_candidates_in_index). Cypher 25 syntax. Idempotent; an index of this name made
// before the upgrade (without group_id) is kept as it is, and search keeps its 5.x path.
// Params:  none; {embedding_dim} is substituted with the configured integer dimension.
// Returns: nothing
CYPHER 25
CREATE VECTOR INDEX fr_fact_embedding IF NOT EXISTS
FOR ()-[r:RELATES_TO]-() ON (r.{lifecycle_vector}) WITH [r.group_id]
OPTIONS {indexConfig: {`vector.dimensions`: {embedding_dim}, `vector.similarity_function`: 'cosine'}}
