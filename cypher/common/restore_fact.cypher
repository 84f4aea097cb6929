// restore_fact — bring an archived fact back to the state it had before archival
// (archived_from; 'active' when unknown). A fact that is not archived is left as it is.
// The caller re-applies the mirror (apply_mirror).
// Params:  $edge_uuid
// Returns: edge_uuid, state (after), was_archived, stage
MATCH (f:FrFact {edge_uuid: $edge_uuid})
WITH f, f.state = 'archived' AS was_archived
SET f.state = CASE WHEN was_archived THEN coalesce(f.archived_from, 'active') ELSE f.state END,
    f.archived_from = CASE WHEN was_archived THEN null ELSE f.archived_from END,
    f.revision = coalesce(f.revision, 0) + CASE WHEN was_archived THEN 1 ELSE 0 END
RETURN f.edge_uuid AS edge_uuid, f.state AS state, was_archived, f.stage AS stage
