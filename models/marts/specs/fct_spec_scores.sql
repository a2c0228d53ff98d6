-- One row per spec, model and component (a draft-standard rubric or an ADP metric), all weeks pooled: the
-- component's raw value in its own units, normalised to [0, 1] by the documented rule (docs/specs.md), with its
-- interval, weight, threshold and n. For exact_match / regex_match rubrics, the score recomputed from the outputs
-- and how many samples disagree with what the records reported. No promotion decision is made on these pooled
-- values: fct_promotion_decisions decides per week, on the values fct_spec_scores_weekly holds.
-- The select is macros/specs/spec_scores.sql, shared by fct_spec_scores and fct_spec_scores_weekly.
{{ spec_scores(weekly=false) }}
