// group_share — how many facts the group and the whole store hold (sizes the vector-index
// request: the 5.26 index cannot filter by group, see vector_candidates). The store total
// comes from the count store; the group count from the group_id range index.
// Params:  $group_id
// Returns: group_facts, store_facts
CALL () {
  MATCH ()-[r:RELATES_TO]->()
  WHERE r.group_id = $group_id
  RETURN count(r) AS group_facts
}
CALL () {
  MATCH ()-[every:RELATES_TO]->()
  RETURN count(every) AS store_facts
}
RETURN group_facts, store_facts
