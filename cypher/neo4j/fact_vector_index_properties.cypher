// fact_vector_index_properties — the properties the facts' vector index holds: its vector
// and, on an index made by Neo4j 2026.01+ with fact_vector_index_filtered, group_id too (then
// search filters by group inside the index). No row when the index does not exist yet.
// Params:  none
// Returns: properties (list of property names)
SHOW VECTOR INDEXES YIELD name, properties
WHERE name = 'fr_fact_embedding'
RETURN properties
