// keep_beside — record that the user keeps two active facts of one slot side by side
// (`fr-graph restore` of an older version while the slot has a newer value): an
// FR_SUPERSEDES {kind: 'reverted'} from the newer fact to the older, as revert_links leaves
// an undone link, so the pair is never linked again and `fr-graph check` sees it
// reconciled. An existing link between the two in that direction is turned into 'reverted'
// with its old kind and reason kept; MERGEd, so a re-run never doubles it.
// Params:  $pairs: list of {newer, older, reason}; $at: ISO-8601 time of the request
// Returns: newer, older (one row per pair recorded)
UNWIND $pairs AS p
MATCH (newer:FrFact {edge_uuid: p.newer})
MATCH (older:FrFact {edge_uuid: p.older})
MERGE (newer)-[s:FR_SUPERSEDES]->(older)
ON CREATE SET s.kind = 'reverted', s.reverted_kind = 'supersede', s.confidence = 1.0,
    s.at = $at, s.reverted_at = $at, s.reason = p.reason
ON MATCH SET s.reason = CASE WHEN s.kind = 'reverted' THEN s.reason
                        ELSE p.reason + ' (was ' + s.kind + ': ' + coalesce(s.reason, '') + ')'
                        END,
    s.reverted_kind = CASE WHEN s.kind = 'reverted' THEN s.reverted_kind ELSE s.kind END,
    s.reverted_at = CASE WHEN s.kind = 'reverted' THEN s.reverted_at ELSE $at END,
    s.kind = 'reverted'
RETURN newer.edge_uuid AS newer, older.edge_uuid AS older
