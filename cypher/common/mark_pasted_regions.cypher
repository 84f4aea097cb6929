// mark_pasted_regions — keep pointers to a message episode's pasted material (code, traces,
// logs, tables, quotes, letters), which offline extraction set aside: "kind:start:end"
// offsets into the episode's content.
// Params:  $rows: list of {uuid: Episodic uuid, regions: list of "kind:start:end"}
// Returns: uuid
UNWIND $rows AS row
MATCH (e:Episodic {uuid: row.uuid})
SET e.fr_pasted_regions = row.regions
RETURN e.uuid AS uuid
