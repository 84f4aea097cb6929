// current_facts — the group's current facts (state active, validity not closed), by category.
// Reads the fr_* mirror on RELATES_TO (run `fr-graph sync` first if Graphiti re-saved edges).
// Params:  $group_id (string): the group
//          $now (time, default now): facts whose validity interval closed before it are left out
//          $category (string, default null): one category (e.g. 'preferences'), null for all
// Returns: category, fact, slot_key, observed_at, event_time, source_id, uuid
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id AND r.fr_state = 'active'
  AND ($category IS NULL OR r.fr_category = $category)
  AND (r.fr_valid_to IS NULL OR r.fr_valid_to > $now)
RETURN r.fr_category AS category, r.fact AS fact, r.fr_slot_key AS slot_key,
       r.fr_observed_at AS observed_at, r.fr_event_time AS event_time,
       r.fr_source_id AS source_id, r.uuid AS uuid
ORDER BY category, observed_at DESC, uuid
