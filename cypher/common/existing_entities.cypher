// existing_entities — which Graphiti Entity nodes already exist (so re-imports never
// overwrite a summary Graphiti wrote).
// Params:  $uuids: list of entity uuids
// Returns: uuid
MATCH (n:Entity)
WHERE n.uuid IN $uuids
RETURN n.uuid AS uuid
