// stage_census — retention load per stage (StageMem): live facts in each stage split by
// lifecycle state, pinned facts, and facts archived from that stage; compare the live
// counts with the stage capacities of `fr-graph policy show`.
// Params:  $group_id (string): the group
// Returns: stage, live, active, inactive (superseded, expired or retracted), pinned,
//          archived, mean_strength (over live facts; null when none)
MATCH (f:FrFact {group_id: $group_id})
WITH coalesce(f.stage, 'transient') AS stage, f.state AS state,
     coalesce(f.pinned, false) AS pinned, f.strength AS strength
RETURN stage,
       count(CASE WHEN state <> 'archived' THEN 1 END) AS live,
       count(CASE WHEN state = 'active' THEN 1 END) AS active,
       count(CASE WHEN state IN ['superseded', 'expired', 'retracted'] THEN 1 END) AS inactive,
       count(CASE WHEN pinned AND state <> 'archived' THEN 1 END) AS pinned,
       count(CASE WHEN state = 'archived' THEN 1 END) AS archived,
       avg(CASE WHEN state <> 'archived' THEN strength END) AS mean_strength
ORDER BY CASE stage WHEN 'transient' THEN 0 WHEN 'working' THEN 1 ELSE 2 END
