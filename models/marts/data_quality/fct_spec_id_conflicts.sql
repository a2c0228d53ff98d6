-- One row per spec id that a draft-standard evaluation and an ADP suite both use, and per kind: specs that are not
-- scored, so no composite and no promotion decision, until one of them is renamed. Results name a spec by its id
-- alone, so they cannot say which of the two they score (int_eval_specs_unioned). The latest version of each says
-- where it was loaded from.
with

specs as (
    select * from {{ ref('int_eval_specs_unioned') }}
),

final as (
    select
        spec_id,
        spec_kind,
        spec_version,
        n_versions,
        source_path,
        source_line,
        ingested_at,
        'the id is also a ' || case spec_kind when 'adp_suite' then 'draft-standard evaluation'
            else 'ADP suite' end || '''s: neither is scored until one is renamed' as reason
    from specs
    where is_id_shared
        and version_rank = 1
)

select * from final
