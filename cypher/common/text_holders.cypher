// text_holders — the prose Graphiti wrote that may hold a purged fact's text: summaries of
// Entity, Community and Saga nodes, and Episodic content. Candidates are the fact's
// endpoints and source episodes (checked for paraphrases too) and every node of the group
// whose lower-cased text contains one of $probes (the fact's normalized sentences).
// Params:  $group_id, $node_uuids: the facts' endpoint entities, $episode_uuids: their
//          episodes, $probes: lower-case phrases
// Returns: uuid, label ('Entity', 'Community', 'Saga' or 'Episodic'), text
MATCH (n:Entity)
WHERE n.group_id = $group_id AND n.summary IS NOT NULL AND n.summary <> ''
  AND (n.uuid IN $node_uuids OR any(p IN $probes WHERE toLower(n.summary) CONTAINS p))
RETURN n.uuid AS uuid, 'Entity' AS label, n.summary AS text
UNION ALL
MATCH (n:Community)
WHERE n.group_id = $group_id AND n.summary IS NOT NULL
  AND any(p IN $probes WHERE toLower(n.summary) CONTAINS p)
RETURN n.uuid AS uuid, 'Community' AS label, n.summary AS text
UNION ALL
MATCH (n:Saga)
WHERE n.group_id = $group_id AND n.summary IS NOT NULL
  AND any(p IN $probes WHERE toLower(n.summary) CONTAINS p)
RETURN n.uuid AS uuid, 'Saga' AS label, n.summary AS text
UNION ALL
MATCH (n:Episodic)
WHERE n.group_id = $group_id AND n.content IS NOT NULL
  AND (n.uuid IN $episode_uuids OR any(p IN $probes WHERE toLower(n.content) CONTAINS p))
RETURN n.uuid AS uuid, 'Episodic' AS label, n.content AS text
