// upsert_overlay — create or update the canonical FrFact nodes (run apply_mirror after).
// Params:  $rows: list of maps, one per fact, each with every FactOverlay field
//          (edge_uuid, group_id, category, categories, category_weights, slot_key, state,
//          marker, event_time, valid_from, valid_to, observed_at, confidence, strength,
//          stage, source_id, has_number, world_knowledge, instruction_like, ambiguous,
//          emotional_loading, schema_version)
// Returns: edge_uuid, revision (bumped on every write; the mirror copies it to detect drift)
UNWIND $rows AS row
MERGE (f:FrFact {edge_uuid: row.edge_uuid})
WITH f, row, coalesce(f.revision, 0) + 1 AS revision
SET f = row
SET f.revision = revision
RETURN f.edge_uuid AS edge_uuid, f.revision AS revision
