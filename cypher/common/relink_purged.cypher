// relink_purged — keep a slot's version chain whole when a middle version is purged: each
// newer fact that hard-superseded it is linked to each older fact it hard-superseded, with
// the kind, confidence and time of the purged fact's own link (FR_SUPERSEDES points newer ->
// older; soft links, which only contest, are not carried over). Run before purge_facts.
// Params:  $edge_uuid: the fact about to be purged
// Returns: newer, older (the edge uuids of each link written)
MATCH (newer:FrFact)-[a:FR_SUPERSEDES]->(f:FrFact {edge_uuid: $edge_uuid})
MATCH (f)-[b:FR_SUPERSEDES]->(older:FrFact)
WHERE NOT a.kind IN ['soft', 'contradict', 'reverted']
  AND NOT b.kind IN ['soft', 'contradict', 'reverted'] AND newer.edge_uuid <> older.edge_uuid
MERGE (newer)-[s:FR_SUPERSEDES]->(older)
ON CREATE SET s.kind = b.kind, s.confidence = b.confidence, s.at = b.at,
              s.reason = 'relinked over a purged version: ' + b.reason
RETURN newer.edge_uuid AS newer, older.edge_uuid AS older
