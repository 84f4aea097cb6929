// repair_drift — find RELATES_TO whose fr_* mirror disagrees with its FrFact and re-apply it.
// A mirror drifts when Graphiti re-saves an edge (duplicate resolution) or a user edits it;
// every mirrored field is compared (null-safe), so an edit of one field alone is found too.
// Params:  $group_id: the group to repair; $limit: max edges per call (call until 0 rows)
// Returns: edge_uuid of each repaired edge
MATCH (f:FrFact {group_id: $group_id})
MATCH ()-[r:RELATES_TO {uuid: f.edge_uuid}]->()
WHERE NOT (
      coalesce(r.fr_category = f.category, r.fr_category IS NULL AND f.category IS NULL)
  AND coalesce(r.fr_categories = f.categories, r.fr_categories IS NULL AND f.categories IS NULL)
  AND coalesce(r.fr_category_weights = f.category_weights, r.fr_category_weights IS NULL AND f.category_weights IS NULL)
  AND coalesce(r.fr_slot_key = f.slot_key, r.fr_slot_key IS NULL AND f.slot_key IS NULL)
  AND coalesce(r.fr_state = f.state, r.fr_state IS NULL AND f.state IS NULL)
  AND coalesce(r.fr_marker = f.marker, r.fr_marker IS NULL AND f.marker IS NULL)
  AND coalesce(r.fr_event_time = f.event_time, r.fr_event_time IS NULL AND f.event_time IS NULL)
  AND coalesce(r.fr_valid_from = f.valid_from, r.fr_valid_from IS NULL AND f.valid_from IS NULL)
  AND coalesce(r.fr_valid_to = f.valid_to, r.fr_valid_to IS NULL AND f.valid_to IS NULL)
  AND coalesce(r.fr_observed_at = f.observed_at, r.fr_observed_at IS NULL AND f.observed_at IS NULL)
  AND coalesce(r.fr_confidence = f.confidence, r.fr_confidence IS NULL AND f.confidence IS NULL)
  AND coalesce(r.fr_strength = f.strength, r.fr_strength IS NULL AND f.strength IS NULL)
  AND coalesce(r.fr_stage = f.stage, r.fr_stage IS NULL AND f.stage IS NULL)
  AND coalesce(r.fr_source_id = f.source_id, r.fr_source_id IS NULL AND f.source_id IS NULL)
  AND coalesce(r.fr_episode = f.episode, r.fr_episode IS NULL AND f.episode IS NULL)
  AND coalesce(r.fr_has_number = f.has_number, r.fr_has_number IS NULL AND f.has_number IS NULL)
  AND coalesce(r.fr_world_knowledge = f.world_knowledge, r.fr_world_knowledge IS NULL AND f.world_knowledge IS NULL)
  AND coalesce(r.fr_instruction_like = f.instruction_like, r.fr_instruction_like IS NULL AND f.instruction_like IS NULL)
  AND coalesce(r.fr_ambiguous = f.ambiguous, r.fr_ambiguous IS NULL AND f.ambiguous IS NULL)
  AND coalesce(r.fr_emotional_loading = f.emotional_loading, r.fr_emotional_loading IS NULL AND f.emotional_loading IS NULL)
  AND coalesce(r.fr_schema_version = f.schema_version, r.fr_schema_version IS NULL AND f.schema_version IS NULL)
  AND coalesce(r.fr_pinned = f.pinned, r.fr_pinned IS NULL AND f.pinned IS NULL)
  AND coalesce(r.fr_access_count = f.access_count, r.fr_access_count IS NULL AND f.access_count IS NULL)
  AND coalesce(r.fr_dependency = f.dependency, r.fr_dependency IS NULL AND f.dependency IS NULL)
  AND coalesce(r.fr_evidence_seen = f.evidence_seen, r.fr_evidence_seen IS NULL AND f.evidence_seen IS NULL)
  AND coalesce(r.fr_archived_from = f.archived_from, r.fr_archived_from IS NULL AND f.archived_from IS NULL)
  AND coalesce(r.fr_settled_at = f.settled_at, r.fr_settled_at IS NULL AND f.settled_at IS NULL)
  AND coalesce(r.fr_revision = f.revision, r.fr_revision IS NULL AND f.revision IS NULL))
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
