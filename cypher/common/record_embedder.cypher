// record_embedder — remember the embedder that writes the store's Graphiti vectors, unless
// one is recorded already; returns the record as it stands.
// Params:  $model (string), $dim (int)
// Returns: model, dim
MERGE (m:FrStoreInfo {key: 'embedder'})
ON CREATE SET m.model = $model, m.dim = $dim
RETURN m.model AS model, m.dim AS dim
