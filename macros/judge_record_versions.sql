{# Whether a rating counts: a CogniBench record's ratings count only from the version of its judged response that
   int_judge_records_ranked says counts (the judge's from version_rank 1, the person's from the latest completed
   record, review_rank 1); every other rating counts. A predicate, for the models that read the ratings built
   incrementally with every version in them (int_ratings_unioned, int_rating_pairs_joined):
     where {{ counted_rating('ratings.record_id', 'ratings.rater_type') }}
   An anti-join on the few uncounted records, so ratings of other sources pay a probe of an (often empty) table. #}
{% macro counted_rating(record_id='record_id', rater_type='rater_type') -%}
    not exists (
        select 1
        from (
            select record_id, 'llm_judge' as rater_type
            from {{ ref('int_judge_records_ranked') }}
            where version_rank > 1
            union all
            select record_id, 'human' as rater_type
            from {{ ref('int_judge_records_ranked') }}
            where review_rank > 1
        ) as uncounted
        where uncounted.record_id = {{ record_id }}
            and uncounted.rater_type = {{ rater_type }}
    )
{%- endmacro %}
