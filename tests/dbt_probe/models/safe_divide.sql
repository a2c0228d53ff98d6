select
    measurement_id,
    {{ safe_divide('numerator', 'denominator') }} as ratio
from {{ source('probe', 'measurements') }}
