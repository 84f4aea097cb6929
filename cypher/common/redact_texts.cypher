// redact_texts — write back summaries and episode content with a purged fact's sentences
// removed. Graphiti's name_embedding embeds the name only, so no embedding goes stale; the
// fulltext indexes follow the new text by themselves.
// Params:  $entities, $communities, $sagas, $episodes: lists of {uuid, text}
// Returns: episodes (how many episodes were rewritten)
UNWIND $entities AS row
MATCH (n:Entity {uuid: row.uuid})
SET n.summary = row.text
WITH count(*) AS entities_done
UNWIND $communities AS row
MATCH (n:Community {uuid: row.uuid})
SET n.summary = row.text
WITH count(*) AS communities_done
UNWIND $sagas AS row
MATCH (n:Saga {uuid: row.uuid})
SET n.summary = row.text
WITH count(*) AS sagas_done
UNWIND $episodes AS row
MATCH (n:Episodic {uuid: row.uuid})
SET n.content = row.text
RETURN count(n) AS episodes
