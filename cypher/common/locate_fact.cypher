// locate_fact — the group a fact (RELATES_TO uuid) belongs to, for commands given only a uuid.
// Params:  $uuid: the RELATES_TO uuid
// Returns: group_id (no row when the fact is not in this graph)
MATCH ()-[r:RELATES_TO {uuid: $uuid}]->()
RETURN r.group_id AS group_id
LIMIT 1
