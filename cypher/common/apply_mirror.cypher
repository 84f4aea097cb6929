// apply_mirror — copy canonical FrFact state onto the fr_* properties of RELATES_TO.
// Run after every Graphiti write: Graphiti's save does SET e = $edge_data and drops them.
// Params:  $edge_uuids: list of RELATES_TO uuids
// Returns: edge_uuid
UNWIND $edge_uuids AS edge_uuid
MATCH (f:FrFact {edge_uuid: edge_uuid})
MATCH ()-[r:RELATES_TO {uuid: edge_uuid}]->()
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
