// expiring_soon — active facts that stop being current in [$now, $until): the validity
// interval closes, or the event of a dated health/obligations/logistics fact passes the
// expiry buffer (14 days by default; numbers are exempt). Buffer-based expiry happens when
// event_time + buffer falls in the window, so the event window is [$now, $until) minus it.
// Params:  $group_id (string): the group
//          $now (time, default now): start of the window
//          $until (time, default now+7d): end of the window (exclusive)
//          $events_from (time, default now-14d): $now minus the expiry buffer
//          $events_until (time, default until-14d): $until minus the expiry buffer
// Returns: why ('validity ends' or 'event passed'), valid_to, event_time, category, fact,
//          source_id, uuid
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id AND r.fr_state = 'active'
  AND ((r.fr_valid_to >= $now AND r.fr_valid_to < $until)
       OR (r.fr_category IN ['health', 'obligations', 'logistical']
           AND NOT coalesce(r.fr_has_number, false)
           AND r.fr_event_time >= $events_from AND r.fr_event_time < $events_until))
RETURN CASE WHEN r.fr_valid_to >= $now AND r.fr_valid_to < $until
            THEN 'validity ends' ELSE 'event passed' END AS why,
       r.fr_valid_to AS valid_to, r.fr_event_time AS event_time, r.fr_category AS category,
       r.fact AS fact, r.fr_source_id AS source_id, r.uuid AS uuid
ORDER BY coalesce(valid_to, event_time), uuid
