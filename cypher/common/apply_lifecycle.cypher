// apply_lifecycle — write one batch of lifecycle decisions as a single atomic query: new
// FrFact nodes, state changes of stored ones, FR_SUPERSEDES edges (newer -> older, MERGEd so
// a re-run never duplicates them), Graphiti's invalid_at / expired_at on hard-superseded
// edges where still unset, then the fr_* mirror of every fact touched (the SET list is
// apply_mirror's; a unit test keeps the two in step with overlay.MIRRORED_FIELDS).
// Params:  $overlays: FrFact rows to create or replace (every FactOverlay field);
//          $updates: {edge_uuid, state, ambiguous, valid_to, slot_key, slot_source,
//          contested} each (contested only ever grows: the strongest contesting link);
//          $links: {newer, older, kind, confidence, at, reason, relation, score, reader} each;
//          $invalidations: list of {edge_uuid, invalid_at} (a date-time);
//          $now: date-time written as expired_at; $mirror: edge uuids to re-mirror
// Returns: mirrored (how many RELATES_TO got their mirror re-applied)
UNWIND $overlays AS row
MERGE (f:FrFact {edge_uuid: row.edge_uuid})
WITH f, row, coalesce(f.revision, 0) + 1 AS revision
SET f = row
SET f.revision = revision
WITH count(*) AS created
UNWIND $updates AS u
MATCH (f:FrFact {edge_uuid: u.edge_uuid})
SET f.state = u.state, f.ambiguous = u.ambiguous, f.valid_to = u.valid_to,
    f.slot_key = u.slot_key, f.slot_source = u.slot_source,
    f.contested = CASE WHEN coalesce(u.contested, 0.0) > coalesce(f.contested, 0.0)
                       THEN u.contested ELSE coalesce(f.contested, 0.0) END,
    f.revision = coalesce(f.revision, 0) + 1
WITH count(*) AS updated
UNWIND $links AS l
MATCH (newer:FrFact {edge_uuid: l.newer})
MATCH (older:FrFact {edge_uuid: l.older})
MERGE (newer)-[s:FR_SUPERSEDES]->(older)
SET s.kind = l.kind, s.confidence = l.confidence, s.at = l.at, s.reason = l.reason,
    s.relation = l.relation, s.score = l.score, s.reader = l.reader
WITH count(*) AS linked
UNWIND $invalidations AS inv
MATCH ()-[r:RELATES_TO {uuid: inv.edge_uuid}]->()
SET r.invalid_at = coalesce(r.invalid_at, inv.invalid_at),
    r.expired_at = coalesce(r.expired_at, $now)
WITH count(*) AS invalidated
UNWIND $mirror AS edge_uuid
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
RETURN count(r) AS mirrored
