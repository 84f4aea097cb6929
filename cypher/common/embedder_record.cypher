// embedder_record — which embedder wrote the store's Graphiti vectors (recorded on first
// write; one record per store, beside the audit records).
// Params:  none
// Returns: model, dim
MATCH (m:FrStoreInfo {key: 'embedder'})
RETURN m.model AS model, m.dim AS dim
