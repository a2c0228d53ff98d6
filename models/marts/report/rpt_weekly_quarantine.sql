-- One row per week, error kind and claimed format: how many lines the ingester refused that week and from how
-- many files (fct_quarantined_lines; the week is the week they were refused), a fact that stays, and how many of them
-- a later ingest has loaded since, so a reader sees what still needs work. The report lists the lines too.
with

quarantined_lines as (
    select * from {{ ref('fct_quarantined_lines') }}
),

final as (
    select
        week_start,
        error_kind,
        source_format,
        count(*) as n_lines,
        count(distinct source_path) as n_files,
        count(loaded_later_at) as n_loaded_later,
        min(quarantined_at) as first_quarantined_at,
        max(quarantined_at) as last_quarantined_at
    from quarantined_lines
    group by week_start, error_kind, source_format
)

select * from final
