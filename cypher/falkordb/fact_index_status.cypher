// fact_index_status — whether the index on RELATES_TO is built (FalkorDB builds indexes in
// the background; a rebuilt one is used only once it is OPERATIONAL).
// Params:  none
// Returns: status ('OPERATIONAL' or 'UNDER CONSTRUCTION')
CALL db.indexes() YIELD label, status, entitytype
WITH label, status, entitytype
WHERE label = 'RELATES_TO' AND entitytype = 'RELATIONSHIP'
RETURN status
