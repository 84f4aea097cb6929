// upcoming_obligations — active dated facts (obligations and logistics by default) whose
// event falls in [$now, $until): appointments, deadlines, trips in the next N days.
// Params:  $group_id (string): the group
//          $now (time, default now): start of the window
//          $until (time, default now+7d): end of the window (exclusive)
//          $categories (strings, default obligations,logistical): categories to include
// Returns: event_time, category, fact, observed_at, source_id, uuid
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id AND r.fr_state = 'active'
  AND r.fr_category IN $categories
  AND r.fr_event_time >= $now AND r.fr_event_time < $until
RETURN r.fr_event_time AS event_time, r.fr_category AS category, r.fact AS fact,
       r.fr_observed_at AS observed_at, r.fr_source_id AS source_id, r.uuid AS uuid
ORDER BY event_time, uuid
