select
    case_id,
    {{ wilson_low('successes', 'n') }} as wilson_low_95,
    {{ wilson_high('successes', 'n') }} as wilson_high_95,
    {{ wilson_low('successes', 'n', z='z') }} as wilson_low_z,
    {{ wilson_high('successes', 'n', z='z') }} as wilson_high_z
from {{ source('probe', 'proportions') }}
