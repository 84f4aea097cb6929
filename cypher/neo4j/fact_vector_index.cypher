// fact_vector_index — the facts' vector index on Neo4j 5.x, which cannot filter by group (see
// vector_candidates). Idempotent; an existing index of this name is kept as it is.
// Params:  none; {embedding_dim} is substituted with the configured integer dimension.
// Returns: nothing
CREATE VECTOR INDEX fr_fact_embedding IF NOT EXISTS
FOR ()-[r:RELATES_TO]-() ON (r.{lifecycle_vector})
OPTIONS {indexConfig: {`vector.dimensions`: {embedding_dim}, `vector.similarity_function`: 'cosine'}}
