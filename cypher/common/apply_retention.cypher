// apply_retention — write one group's maintenance as a single atomic query: summary FrFacts
// (their RELATES_TO already saved), stage / state / strength changes of stored facts,
// FR_COMPRESSES edges (summary -> original, MERGEd so a re-run never duplicates them), then
// the fr_* mirror of every fact touched (the SET list is apply_mirror's).
// Params:  $summaries: FrFact rows to create (every FactOverlay field);
//          $moves: list of {edge_uuid, stage, state, archived_from, strength, dependency,
//          evidence_seen, settled_at}; $links: list of {summary, original, at, reason};
//          $mirror: edge uuids to re-mirror
// Returns: mirrored (how many RELATES_TO got their mirror re-applied)
UNWIND $summaries AS row
MERGE (f:FrFact {edge_uuid: row.edge_uuid})
WITH f, row, coalesce(f.revision, 0) + 1 AS revision
SET f = row
SET f.revision = revision
WITH count(*) AS created
UNWIND $moves AS m
MATCH (f:FrFact {edge_uuid: m.edge_uuid})
SET f.stage = m.stage, f.state = m.state, f.archived_from = m.archived_from,
    f.strength = m.strength, f.dependency = m.dependency, f.evidence_seen = m.evidence_seen,
    f.settled_at = m.settled_at, f.revision = coalesce(f.revision, 0) + 1
WITH count(*) AS moved
UNWIND $links AS l
MATCH (s:FrFact {edge_uuid: l.summary})
MATCH (o:FrFact {edge_uuid: l.original})
MERGE (s)-[c:FR_COMPRESSES]->(o)
SET c.at = l.at, c.reason = l.reason
WITH count(*) AS linked
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
