-- krippendorff_alpha_bootstrap per group at three levels, 200 replicates: the ends must equal numpy's quantiles of
-- krippendorff.alpha on each replicate's resampled ratings (columns repeated as often as their unit was drawn).
with

{%- for level in ['nominal', 'ordinal', 'interval'] %}

interval_{{ level }} as (
    {{ krippendorff_alpha_bootstrap(ref('boot_unit_matrix'), ['group_id'], ['unit_id'], level=level,
                                    n_replicates=200) }}
),
{%- endfor %}

final as (
    {%- for level in ['nominal', 'ordinal', 'interval'] %}
    select '{{ level }}' as level, * from interval_{{ level }}
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
)

select * from final
