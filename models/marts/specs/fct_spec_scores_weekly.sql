-- One row per spec, model, component and week: the component values fct_promotion_decisions decides on that week,
-- so a week's failing_components are exactly the rows here whose meets_threshold is false. The columns are
-- fct_spec_scores' (all weeks pooled) with week_start; the rules are in docs/specs.md.
-- The select is macros/specs/spec_scores.sql, shared by fct_spec_scores and fct_spec_scores_weekly.
{{ spec_scores(weekly=true) }}
