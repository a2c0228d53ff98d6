{{ pass_at_k(source('probe', 'pass_tasks'), ['group_id']) }}
