select
    case_id,
    {{ wilson_low_from_se('mean', 'se', 'n', 'min_value', 'max_value') }} as low_95,
    {{ wilson_high_from_se('mean', 'se', 'n', 'min_value', 'max_value') }} as high_95,
    {{ wilson_low_from_se('mean', 'se', 'n', 'min_value', 'max_value', z='z') }} as low_z,
    {{ wilson_high_from_se('mean', 'se', 'n', 'min_value', 'max_value', z='z') }} as high_z,
    {{ wilson_low_from_se('mean', 'se', 'n') }} as low_unit,
    {{ wilson_high_from_se('mean', 'se', 'n') }} as high_unit
from {{ source('probe', 'bounded_means') }}
