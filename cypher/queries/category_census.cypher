// category_census — how many facts the group holds per category, split by lifecycle state
// (facts without an overlay count as 'unannotated').
// Params:  $group_id (string): the group
// Returns: category, facts, active, superseded, expired, retracted, archived
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id
WITH coalesce(r.fr_category, 'unannotated') AS category, r.fr_state AS state
RETURN category, count(*) AS facts,
       count(CASE WHEN state = 'active' THEN 1 END) AS active,
       count(CASE WHEN state = 'superseded' THEN 1 END) AS superseded,
       count(CASE WHEN state = 'expired' THEN 1 END) AS expired,
       count(CASE WHEN state = 'retracted' THEN 1 END) AS retracted,
       count(CASE WHEN state = 'archived' THEN 1 END) AS archived
ORDER BY facts DESC, category
