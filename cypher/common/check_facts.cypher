// check_facts — a group's lifecycle facts for `fr-graph check` (fr_graph.core.invariants):
// each FrFact with its canonical fields and the fr_* mirror on its RELATES_TO (has_edge is
// false when the edge is gone), then each edge of the group that carries a mirror but has no
// FrFact. The mirrored map names every field apply_mirror copies (a unit test keeps the two
// in step), by overlay field name.
// Params:  $group_id
// Returns: uuid, overlay (an FrFact exists), has_edge (its RELATES_TO exists),
//          canonical (the FrFact's properties; null without one),
//          mirrored (the edge's fr_* properties, without the prefix)
MATCH (f:FrFact {group_id: $group_id})
OPTIONAL MATCH ()-[r:RELATES_TO {uuid: f.edge_uuid}]->()
RETURN f.edge_uuid AS uuid, true AS overlay, r IS NOT NULL AS has_edge,
       properties(f) AS canonical,
       {category: r.fr_category, categories: r.fr_categories,
        category_weights: r.fr_category_weights, slot_key: r.fr_slot_key,
        state: r.fr_state, marker: r.fr_marker, event_time: r.fr_event_time,
        valid_from: r.fr_valid_from, valid_to: r.fr_valid_to,
        observed_at: r.fr_observed_at, confidence: r.fr_confidence,
        strength: r.fr_strength, stage: r.fr_stage, source_id: r.fr_source_id,
        episode: r.fr_episode, has_number: r.fr_has_number,
        world_knowledge: r.fr_world_knowledge, instruction_like: r.fr_instruction_like,
        ambiguous: r.fr_ambiguous, emotional_loading: r.fr_emotional_loading,
        schema_version: r.fr_schema_version, pinned: r.fr_pinned,
        access_count: r.fr_access_count, dependency: r.fr_dependency,
        evidence_seen: r.fr_evidence_seen, archived_from: r.fr_archived_from,
        settled_at: r.fr_settled_at, revision: r.fr_revision} AS mirrored
UNION ALL
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id AND r.fr_state IS NOT NULL
OPTIONAL MATCH (f:FrFact {edge_uuid: r.uuid})
WITH r, f
WHERE f IS NULL
RETURN r.uuid AS uuid, false AS overlay, true AS has_edge, null AS canonical,
       null AS mirrored
