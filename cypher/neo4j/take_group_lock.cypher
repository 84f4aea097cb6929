// take_group_lock — write-lock the group's lock node as the first statement of a lifecycle
// transaction, so that concurrent writers of one group (any process) run their
// read-decide-write one after another. The unique constraint fr_lock_group makes the MERGE
// of a missing node safe under concurrency; the SET takes the write lock until commit.
// Params:  $group_id
// Returns: group_id
MERGE (l:FrLock {group_id: $group_id})
SET l.taken = coalesce(l.taken, 0) + 1
RETURN l.group_id AS group_id
