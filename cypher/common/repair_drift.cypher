// repair_drift — find RELATES_TO whose fr_* mirror disagrees with its FrFact and re-apply it.
// A mirror drifts when Graphiti re-saves an edge (duplicate resolution) or a user edits it.
// Params:  $group_id: the group to repair; $limit: max edges per call (call until 0 rows)
// Returns: edge_uuid of each repaired edge
MATCH (f:FrFact {group_id: $group_id})
MATCH ()-[r:RELATES_TO {uuid: f.edge_uuid}]->()
WHERE r.fr_revision IS NULL OR r.fr_revision <> f.revision OR r.fr_state IS NULL
   OR r.fr_state <> f.state
WITH f, r LIMIT $limit
SET
    r.fr_category = f.category,
    r.fr_categories = f.categories,
    r.fr_category_weights = f.category_weights,
    r.fr_slot_key = f.slot_key,
    r.fr_state = f.state,
    r.fr_marker = f.marker,
    r.fr_event_time = f.event_time,
    r.fr_valid_from = f.valid_from,
    r.fr_valid_to = f.valid_to,
    r.fr_observed_at = f.observed_at,
    r.fr_confidence = f.confidence,
    r.fr_strength = f.strength,
    r.fr_stage = f.stage,
    r.fr_source_id = f.source_id,
    r.fr_episode = f.episode,
    r.fr_has_number = f.has_number,
    r.fr_world_knowledge = f.world_knowledge,
    r.fr_instruction_like = f.instruction_like,
    r.fr_ambiguous = f.ambiguous,
    r.fr_emotional_loading = f.emotional_loading,
    r.fr_schema_version = f.schema_version,
    r.fr_pinned = f.pinned,
    r.fr_access_count = f.access_count,
    r.fr_dependency = f.dependency,
    r.fr_evidence_seen = f.evidence_seen,
    r.fr_archived_from = f.archived_from,
    r.fr_settled_at = f.settled_at,
    r.fr_revision = f.revision
RETURN f.edge_uuid AS edge_uuid
