// backfill_edges — what backfill reads of one page of unannotated RELATES_TO: the fact, its
// Graphiti times (invalid_at / expired_at are evidence it is no longer current) and its
// endpoints. Edges annotated meanwhile are skipped.
// Params:  $edge_uuids: list of RELATES_TO uuids
// Returns: uuid, fact, valid_at, created_at, invalid_at, expired_at, source_name, target_name
UNWIND $edge_uuids AS edge_uuid
MATCH (s)-[r:RELATES_TO {uuid: edge_uuid}]->(t)
OPTIONAL MATCH (f:FrFact {edge_uuid: edge_uuid})
WITH s, r, t, f
WHERE f IS NULL
RETURN r.uuid AS uuid, r.fact AS fact, r.valid_at AS valid_at, r.created_at AS created_at,
       r.invalid_at AS invalid_at, r.expired_at AS expired_at, s.name AS source_name,
       t.name AS target_name
