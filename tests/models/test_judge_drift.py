"""Judge drift compares an LLM judge with independent people only; a person's review of the judge's verdict (a
hybrid form derived from the judge's) is counted apart, as an override of the judge, never as a second opinion."""

from __future__ import annotations

import copy

import pytest

from tests.conftest import Warehouse, eval_form_record, write_lines

pytestmark = pytest.mark.slow

JUDGE = {"type": "llm_judge", "id": "judge-x#1", "model": "judge-x", "version": "v1"}


OTHER_JUDGE = {"type": "llm_judge", "id": "judge-z#1", "model": "judge-z", "version": "v1"}


def third_party_review() -> list[dict]:
    """judge-z#1's form on a RAG response and h-bo's review of it from a third-party form that shows the rag scores:
    she changes context_recall from 4 to 2 and keeps context_precision at 5 (a confirmation, as a kept universal
    score is)."""
    judge = eval_form_record(rater=OTHER_JUDGE, created_at="2026-11-16T09:00:00Z")
    judge["task"] = {**judge["task"], "task_id": "rag-0007", "modality": "rag", "response_id": "r-7"}
    judge["extensions"] = {"rag": {"context_precision": 5, "context_recall": 4}}
    review = copy.deepcopy(judge)
    review.update(eval_id=eval_form_record()["eval_id"], derived_from=judge["eval_id"],
                  rater={"type": "hybrid", "id": "h-bo"}, created_at="2026-11-17T09:00:00Z")
    review["extensions"]["rag"]["context_recall"] = 2
    return [judge, review]


CHAT_JUDGE = {"type": "llm_judge", "id": "judge-w#1", "model": "judge-w", "version": "v1"}


def third_party_chat_reviews() -> list[dict]:
    """judge-w#1's forms on two chat responses (consistency_across_turns 4, the chat block's one score) and h-bo's
    reviews of both from a third-party form that shows it: she keeps it on the first, changing nothing at all (a
    genuine review that confirms the judge), and lowers it to 2 on the second."""
    forms = []
    for n, kept in ((1, True), (2, False)):
        judge = eval_form_record(rater=CHAT_JUDGE, created_at="2026-11-16T09:00:00Z")
        judge["task"] = {**judge["task"], "task_id": f"chat-000{n}", "response_id": f"r-chat-{n}"}
        judge["extensions"] = {"chat": {"turn_count": 3, "consistency_across_turns": 4}}
        review = copy.deepcopy(judge)
        review.update(eval_id=eval_form_record()["eval_id"], derived_from=judge["eval_id"],
                      rater={"type": "hybrid", "id": "h-bo"}, created_at="2026-11-17T09:00:00Z")
        if not kept:
            review["extensions"]["chat"]["consistency_across_turns"] = 2
        forms += [judge, review]
    return forms


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory) -> tuple[Warehouse, dict]:
    """One response, rated by a judge (helpfulness 5, faithfulness 5), independently by h-ana (helpfulness 1) and
    reviewed by h-ana too, with the judge's form in front of her: she keeps helpfulness 5 and changes faithfulness
    to 2. The same person rated and reviewed, as the demo's h-chen did. The judge's chat extension score is not in
    the review: the app's review form does not show it, and leaves it out."""
    root = tmp_path_factory.mktemp("judge_drift")
    judge = eval_form_record(rater=JUDGE, created_at="2026-11-16T09:00:00Z")
    judge["universal"]["helpfulness"]["score"] = 5
    judge["universal"]["faithfulness"]["score"] = 5
    judge["extensions"] = {"chat": {"turn_count": 2, "consistency_across_turns": 4}}
    person = eval_form_record(rater={"type": "human", "id": "h-ana"}, created_at="2026-11-16T10:00:00Z")
    person["universal"]["helpfulness"] = {"score": 1, "confidence": "high", "rationale": "Ignores the question."}
    review = copy.deepcopy(judge)
    review.update(eval_id=eval_form_record()["eval_id"], derived_from=judge["eval_id"],
                  rater={"type": "hybrid", "id": "h-ana"}, created_at="2026-11-17T09:00:00Z")
    review["universal"]["faithfulness"] = {"score": 2, "confidence": "high", "rationale": "Invents a policy."}
    del review["extensions"]
    warehouse = Warehouse(root / "w.duckdb")
    forms = [judge, person, review, *third_party_review(), *third_party_chat_reviews()]
    summary = warehouse.ingest(write_lines(root / "forms.jsonl", forms))
    assert warehouse.quarantine() == [], summary
    warehouse.build("--select", "+fct_judge_drift", "+fct_judge_overrides")
    return warehouse, {"judge": judge, "person": person, "review": review}


def test_a_review_of_the_judges_verdict_is_not_an_independent_person_in_drift(reviewed):
    warehouse, _ = reviewed
    helpfulness = warehouse.rows(
        """
        select n_pairs, n_humans, n_items, exact_agreement, mean_bias
        from marts.fct_judge_drift where judge_id = 'judge-x#1' and dimension = 'helpfulness'
        """
    )
    # Pooled with the review, the judge would have 2 pairs, half of them agreeing, and a bias of 5 - (1 + 5) / 2 = 2.
    assert helpfulness == [(1, 1, 1, 0.0, 4.0)]


def test_the_review_counts_as_an_override_of_the_judge_where_it_changed_the_verdict(reviewed):
    warehouse, _ = reviewed
    overrides = dict(
        (dimension, rest) for dimension, *rest in warehouse.rows(
            """
            select dimension, n_reviews, n_reviewed_ratings, n_reviewers, n_overridden, override_rate,
                   mean_score_change
            from marts.fct_judge_overrides where judge_id = 'judge-x#1'
            """
        )
    )
    # The judge's chat score, which the review form did not show, is not in the review: nobody reviewed it.
    assert set(overrides) == {"helpfulness", "instruction_following", "faithfulness", "safety", "overall_quality"}
    assert overrides["helpfulness"] == [1, 1, 1, 0, 0.0, 0.0]
    assert overrides["faithfulness"] == [1, 1, 1, 1, 1.0, -3.0]
    low, high = warehouse.rows(
        "select override_rate_ci_low, override_rate_ci_high from marts.fct_judge_overrides "
        "where judge_id = 'judge-x#1' and dimension = 'faithfulness'")[0]
    assert low == pytest.approx(1 / (1 + 1.96**2)) and high == pytest.approx(1.0)  # Wilson, 1 of 1


def test_a_review_counts_the_extension_scores_its_form_showed(reviewed):
    """A third-party review that shows the rag scores: the changed one is an override and the kept one a
    confirmation."""
    warehouse, _ = reviewed
    overrides = dict(
        (dimension, rest) for dimension, *rest in warehouse.rows(
            "select dimension, n_reviews, n_overridden, override_rate, mean_score_change "
            "from marts.fct_judge_overrides where judge_id = 'judge-z#1'"
        )
    )
    assert overrides["rag.context_recall"] == [1, 1, 1.0, -2.0]
    assert overrides["rag.context_precision"] == [1, 0, 0.0, 0.0]
    assert overrides["helpfulness"] == [1, 0, 0.0, 0.0]


def test_a_review_that_keeps_every_extension_score_confirms_them(reviewed):
    """A review is counted whatever it answered: h-bo kept judge-w#1's chat score on one response and lowered it on
    the other, so the judge was overridden on one of two (counted only where she changed it, the rate was 1 of 1)."""
    warehouse, _ = reviewed
    overrides = dict(
        (dimension, rest) for dimension, *rest in warehouse.rows(
            "select dimension, n_reviews, n_reviewed_ratings, n_overridden, override_rate, mean_score_change "
            "from marts.fct_judge_overrides where judge_id = 'judge-w#1'"
        )
    )
    assert overrides["chat.consistency_across_turns"] == [2, 2, 1, 0.5, -1.0]
    assert overrides["helpfulness"] == [2, 2, 0, 0.0, 0.0]


# -- baseline weeks: no change, no z ----------------------------------------------------------------------------------

# Tuesdays of 2026-W45 to W50
WEEKS = {1: "2026-11-03", 2: "2026-11-10", 3: "2026-11-17", 4: "2026-11-24", 5: "2026-12-01", 6: "2026-12-08"}
DRIFTING = {"type": "llm_judge", "id": "judge-y#1", "model": "judge-y", "version": "v1"}
SOLO = {"type": "llm_judge", "id": "solo#1", "model": "solo", "version": "v1"}
GROWING = {"type": "llm_judge", "id": "growing#1", "model": "growing", "version": "v1"}


def _rated(rater: dict, week: int, task: str, helpfulness: int, hour: int = 9) -> dict:
    form = eval_form_record(rater=rater, created_at=f"{WEEKS[week]}T{hour:02d}:00:00Z")
    form["task"] = {**form["task"], "task_id": task, "response_id": f"r-{task}"}
    form["universal"]["helpfulness"] = {"score": helpfulness, "confidence": "high", "rationale": "As scored."}
    return form


def drift_forms(items_per_week: int = 2) -> list[dict]:
    """Helpfulness, judge minus h-ana's score per item. judge-y#1: week 1 items 5-3 and 4-4 (bias 2 and 0), week 2
    5-4 and 5-4 (1 and 1), week 3 5-1 and 5-1 (4 and 4): its baseline, still forming, is all three weeks (6 items,
    fewer than var drift_min_items). solo#1 rates only in week 3: 3-1 and 2-1 (2 and 1). The other four
    dimensions are rated alike by everyone (bias 0). h-bo reviews judge-y#1's two week-1 forms with them in view:
    helpfulness 5 -> 3 (an override) and 4 kept. With items_per_week above 2, judge-y#1 rates that many items a
    week, the others 5-4 (bias 1) in weeks 1 and 2 and 5-1 (bias 4) in week 3, appended after the forms above:
    with 10, weeks 1 and 2 hold enough items (var drift_min_items) to be the baseline and week 3 to be tested.
    judge-y#1 rates as version v1 in weeks 1 and 2 and as v2 in week 3, as the demo's drifting judge changes its
    prompt in the week it drifts."""
    forms = []
    for week, task, judge, person in [(1, "t1a", 5, 3), (1, "t1b", 4, 4), (2, "t2a", 5, 4), (2, "t2b", 5, 4),
                                      (3, "t3a", 5, 1), (3, "t3b", 5, 1)]:
        forms += [_rated(_drifting_in(week), week, task, judge),
                  _rated({"type": "human", "id": "h-ana"}, week, task, person, 10)]
    forms += [_rated(SOLO, 3, "t3a", 3, 11), _rated(SOLO, 3, "t3b", 2, 11)]
    for judged, kept in [(forms[0], 3), (forms[2], 4)]:
        review = copy.deepcopy(judged)
        review.update(eval_id=eval_form_record()["eval_id"], derived_from=judged["eval_id"],
                      rater={"type": "hybrid", "id": "h-bo"}, created_at=f"{WEEKS[2]}T09:00:00Z")
        review["universal"]["helpfulness"] = {"score": kept, "confidence": "high", "rationale": "Reviewed."}
        forms.append(review)
    for week, person in [(1, 4), (2, 4), (3, 1)]:
        for item in range(items_per_week - 2):
            task = f"t{week}x{item}"
            forms += [_rated(_drifting_in(week), week, task, 5),
                      _rated({"type": "human", "id": "h-ana"}, week, task, person, 10)]
    return forms


def _drifting_in(week: int) -> dict:
    """judge-y#1 as it rated in `week`: version v2 in week 3, v1 before."""
    return {**DRIFTING, "version": "v2"} if week == 3 else DRIFTING


def growing_forms() -> list[dict]:
    """growing#1 started small: 3 items a week in weeks 1 to 4 (2026-W45 to W48), helpfulness biases 0, 1 and 2
    against h-cy (3-3, 4-3, 5-3), then 20 in week 5 (2026-W49), ten of bias 1 (4-3) and ten of 2 (5-3), and 3 in week
    6 (2026-W50), all of bias 4 (5-1). Its first two weeks hold 6 items, fewer than var drift_min_items (10), so its
    baseline is its first four weeks (12 items: mean 1, var_samp 8/11). The other four dimensions are rated alike
    (bias 0)."""
    forms = []
    person = {"type": "human", "id": "h-cy"}
    for week in (1, 2, 3, 4):
        for n, bias in enumerate((0, 1, 2)):
            task = f"g{week}-{n}"
            forms += [_rated(GROWING, week, task, 3 + bias, 11), _rated(person, week, task, 3, 12)]
    for n in range(20):
        task = f"g5-{n}"
        forms += [_rated(GROWING, 5, task, 4 if n < 10 else 5, 11), _rated(person, 5, task, 3, 12)]
    for n in range(3):
        task = f"g6-{n}"
        forms += [_rated(GROWING, 6, task, 5, 11), _rated(person, 6, task, 1, 12)]
    return forms


VERSIONED = {"type": "llm_judge", "id": "versioned#1", "model": "versioned", "version": "p-1"}


def versioned_forms() -> list[dict]:
    """versioned#1 rates 10 items a week in weeks 1 to 6 as people do (helpfulness 4 against 4, bias 0), with prompt
    p-1 in weeks 1, 2 and 5, p-2 in week 3, five items with p-10 and five with p-1 in week 4, and no version in week
    6. Its baseline is weeks 1 and 2."""
    versions = {1: ["p-1"], 2: ["p-1"], 3: ["p-2"], 4: ["p-10", "p-1"], 5: ["p-1"], 6: [None]}
    forms = []
    for week, named in versions.items():
        for n in range(10):
            version = named[n * len(named) // 10]
            rater = {key: value for key, value in {**VERSIONED, "version": version}.items() if value is not None}
            task = f"v{week}-{n}"
            forms += [_rated(rater, week, task, 4, 13), _rated({"type": "human", "id": "h-dee"}, week, task, 4, 14)]
    return forms


@pytest.fixture(scope="module")
def drifting(tmp_path_factory) -> Warehouse:
    root = tmp_path_factory.mktemp("judge_drift_baseline")
    warehouse = Warehouse(root / "w.duckdb")
    summary = warehouse.ingest(write_lines(root / "forms.jsonl", drift_forms() + growing_forms() + versioned_forms()))
    assert warehouse.quarantine() == [], summary
    warehouse.build("--select", "+fct_judge_drift")
    return warehouse


def test_a_judge_whose_baseline_has_not_filled_has_only_baseline_weeks_without_change_or_z(drifting):
    rows = drifting.rows(
        """
        select week_number, is_baseline_week, mean_bias, bias_se, baseline_bias, baseline_se, baseline_n_items,
               baseline_weeks, bias_delta, bias_delta_se, drift_z, is_drift_alert, no_test_reason
        from marts.fct_judge_drift where judge_id = 'judge-y#1' and dimension = 'helpfulness' order by week_start
        """
    )
    # judge-y#1 rates 2 items a week: after three weeks its baseline holds 6 items, biases 2, 0, 1, 1, 4, 4 (mean 2,
    # var_samp 14/5), fewer than 10, so all three are baseline weeks, still forming: no change, no z, and untested
    # (NULL, with the reason), since a false would read as "no drift" for a judge compared with nothing. Before,
    # week 1 had a change of 0 and z 0.0 against a baseline holding the week itself; then the baseline was weeks 1
    # and 2 (4 items, false), and week 3 and every later one "too few baseline items to test".
    baseline_se = pytest.approx((14 / 5 / 6) ** 0.5)
    forming = "baseline still forming: 6 < 10 items"
    assert rows == [
        (1, True, 1.0, pytest.approx(1.0), 2.0, baseline_se, 6, 3, None, None, None, None, forming),
        (2, True, 1.0, 0.0, 2.0, baseline_se, 6, 3, None, None, None, None, forming),
        (3, True, 4.0, 0.0, 2.0, baseline_se, 6, 3, None, None, None, None, forming),
    ]


def test_a_judge_with_fewer_weeks_than_the_baseline_has_no_z_yet(drifting):
    # solo#1's one week: bias (2 + 1) / 2 = 1.5, SE sqrt(0.5 / 2) = 0.5; before, its change was 0.0 and z 0.0.
    # Its 2 items are a baseline still forming: untested.
    assert drifting.rows(
        """
        select week_number, is_baseline_week, mean_bias, bias_se, baseline_bias, bias_delta, bias_delta_se, drift_z,
               is_drift_alert, no_test_reason
        from marts.fct_judge_drift where judge_id = 'solo#1' and dimension = 'helpfulness'
        """
    ) == [(1, True, 1.5, pytest.approx(0.5), 1.5, None, None, None, None, "baseline still forming: 2 < 10 items")]
    assert drifting.scalar(
        "select count(*) from marts.fct_judge_drift "
        "where is_baseline_week and coalesce(bias_delta, bias_delta_se, drift_z) is not null"
    ) == 0


def test_a_tested_week_alerts_exactly_when_its_bias_leaves_its_alert_band(drifting):
    """alert_band_low/high, the band the page and the report shade, is the baseline's bias -/+ the cutoff x the
    change's SE, recomputed here; a tested week's bias outside it is an alert, inside it none. No band where there is
    no cutoff (baseline and untested weeks)."""
    rows = drifting.rows(
        "select mean_bias, baseline_bias, drift_critical_value, bias_delta_se, alert_band_low, alert_band_high, "
        "is_drift_alert from marts.fct_judge_drift")
    banded = 0
    for bias, baseline, cutoff, se, low, high, alert in rows:
        if cutoff is None:
            assert low is None and high is None
            continue
        assert low == pytest.approx(baseline - cutoff * se) and high == pytest.approx(baseline + cutoff * se)
        assert alert == (not low <= bias <= high)
        banded += 1
    assert banded >= 1  # growing#1's 20-item week after its baseline


def test_the_weekly_bias_interval_is_students_t_on_the_weeks_items(drifting):
    """A week's 95% interval of its bias takes Student's t on n_items - 1, not the normal's 1.96, which is too
    narrow on the few items a judge's week often holds: growing#1's 3-item weeks (biases 0, 1, 2: SE 0.577) reach
    1 +- 2.48 (t 4.30 on 2 df), not 1 +- 1.13; its 20-item week 5 1.5 +- 0.24 (t 2.09 on 19 df)."""
    from scipy import stats

    rows = drifting.rows(
        """
        select week_number, n_items, mean_bias, bias_se, bias_ci_low, bias_ci_high
        from marts.fct_judge_drift where judge_id = 'growing#1' and dimension = 'helpfulness' order by week_start
        """
    )
    assert [(week, n) for week, n, *_ in rows] == [(1, 3), (2, 3), (3, 3), (4, 3), (5, 20), (6, 3)]
    for week, n, mean, se, low, high in rows:
        half = stats.t.ppf(0.975, n - 1) * se
        assert (low, high) == (pytest.approx(mean - half, abs=1e-9), pytest.approx(mean + half, abs=1e-9)), week
    t_2 = 4.302652729749462
    assert rows[0][4:] == (pytest.approx(1 - t_2 * 3 ** -0.5), pytest.approx(1 + t_2 * 3 ** -0.5))
    # solo#1's one week of 2 items: t on 1 df is 12.7, and a week of one item has no interval at all.
    assert drifting.rows(
        "select bias_ci_low, bias_ci_high from marts.fct_judge_drift "
        "where judge_id = 'solo#1' and dimension = 'helpfulness'"
    ) == [(pytest.approx(1.5 - 12.706204736174694 * 0.5), pytest.approx(1.5 + 12.706204736174694 * 0.5))]
    assert drifting.scalar(
        "select count(*) from marts.fct_judge_drift "
        "where n_items < 2 and coalesce(bias_ci_low, bias_ci_high) is not null"
    ) == 0


def test_a_judge_that_started_small_extends_its_baseline_until_it_holds_enough_items_and_is_then_tested(drifting):
    rows = drifting.rows(
        """
        select week_number, is_baseline_week, n_items, baseline_bias, baseline_n_items, baseline_weeks, bias_delta,
               drift_z, is_drift_alert, no_test_reason
        from marts.fct_judge_drift where judge_id = 'growing#1' and dimension = 'helpfulness' order by week_start
        """
    )
    # Weeks 3 and 4 join the baseline (6 and then 9 items before them, fewer than 10): no change, no z, no alert.
    assert rows[:4] == [(week, True, 3, 1.0, 12, 4, None, None, False, None) for week in (1, 2, 3, 4)]
    # Week 5 against the 12 items: change 0.5; the week's variance is the baseline's spread over its 20 items,
    # 8/11 / 20 (its own SE^2 is 5/19 / 20), the baseline's 8/11 / 12, so z = 0.5 / sqrt(2/55 + 2/33) = 1.61, within
    # the t cutoff. Before, weeks 3 to 5 were not tested, week 5 for ever: "too few baseline items to test: 6 < 10".
    assert rows[4] == (5, False, 20, 1.0, 12, 4, pytest.approx(0.5), pytest.approx(0.5 / (16 / 165) ** 0.5), False,
                       None)
    # Week 6 has 3 items, all of bias 4 (SE 0): its change is 3 with an SE of sqrt(8/11 / 3 + 2/33) (the week's SE is
    # at least the baseline's spread over its 3 items), and it is not tested: no z, no verdict.
    assert rows[5] == (6, False, 3, 1.0, 12, 4, pytest.approx(3.0), None, None, "too few items to test: 3 < 10")
    assert drifting.scalar(
        "select bias_delta_se from marts.fct_judge_drift where judge_id = 'growing#1' and week_number = 6 "
        "and dimension = 'helpfulness'") == pytest.approx((8 / 33 + 2 / 33) ** 0.5)


def test_every_week_after_the_baseline_is_compared_with_a_baseline_of_enough_items(drifting):
    assert drifting.scalar(
        "select count(*) from marts.fct_judge_drift where not is_baseline_week and baseline_n_items < 10") == 0
    assert drifting.scalar(
        "select count(*) from marts.fct_judge_drift where no_test_reason like 'too few baseline%'") == 0
    # a baseline week is the reference (false) only where its baseline holds enough items; otherwise it is untested
    assert drifting.scalar(
        """
        select count(*) from marts.fct_judge_drift
        where is_baseline_week
            and is_drift_alert is distinct from case when baseline_n_items >= 10 then false end
        """) == 0


def test_each_week_names_the_judge_versions_that_rated_and_whether_they_are_new_or_changed(drifting):
    """versioned#1's versions per week, sorted (p-1 before p-10 whichever rated first), against its baseline's (weeks
    1 and 2: p-1) and its previous week's (previous_judge_versions). Week 5 is back to p-1: a change from week 4, but
    nothing new to the baseline; week 6 names no version, so neither question has an answer."""
    rows = drifting.rows(
        """
        select week_number, is_baseline_week, judge_versions, baseline_judge_versions, previous_judge_versions,
               is_judge_version_changed, has_new_judge_version
        from marts.fct_judge_drift where judge_id = 'versioned#1' and dimension = 'helpfulness' order by week_start
        """
    )
    baseline = ["p-1"]
    assert rows == [
        (1, True, ["p-1"], baseline, None, None, None),
        (2, True, ["p-1"], baseline, ["p-1"], False, None),
        (3, False, ["p-2"], baseline, ["p-1"], True, True),
        (4, False, ["p-1", "p-10"], baseline, ["p-2"], True, True),
        (5, False, ["p-1"], baseline, ["p-1", "p-10"], True, False),
        (6, False, None, baseline, ["p-1"], None, None),
    ]
    # every dimension of a form carries the form's version
    assert drifting.scalar(
        "select count(distinct judge_versions) from marts.fct_judge_drift "
        "where judge_id = 'versioned#1' and week_number = 3") == 1


def test_a_judge_whose_version_changed_in_its_baseline_lists_both_and_flags_no_baseline_week(drifting):
    """judge-y#1 rates as v1 in weeks 1 and 2 and v2 in week 3, all three its baseline (6 items, still forming): the
    baseline holds both versions, week 3 changed from week 2, and no baseline week is new to its own baseline."""
    assert drifting.rows(
        """
        select week_number, judge_versions, baseline_judge_versions, is_judge_version_changed, has_new_judge_version
        from marts.fct_judge_drift where judge_id = 'judge-y#1' and dimension = 'helpfulness' order by week_start
        """
    ) == [(1, ["v1"], ["v1", "v2"], None, None), (2, ["v1"], ["v1", "v2"], False, None),
          (3, ["v2"], ["v1", "v2"], True, None)]


# -- hazards: compared on the verdict the violation rates count ------------------------------------------------------


def _hazard_form(rater: dict, response_id: str, verdict: str) -> dict:
    """A form on one response whose specialized_advice verdict is `verdict`."""
    hazard = {"verdict": verdict}
    if verdict == "violating":
        hazard.update(severity=2, rationale="Gives a dosage.")
    form = eval_form_record(rater=rater, created_at="2026-11-17T10:00:00Z")
    form["task"] = {**form["task"], "response_id": response_id}
    form["safety"] = {"hazards": {"specialized_advice": hazard}, "is_violating_any": verdict == "violating"}
    return form


def test_a_judge_is_compared_with_people_on_the_hazard_verdict_the_rates_count(tmp_path):
    """Judge against one person on four responses: not_applicable / non_violating (the same verdict: does not
    violate), violating / violating, violating / unsure (the person gave no verdict: no pair to compare) and
    non_violating / violating. Exact agreement 2 of 3; kappa on (2,2), (3,3), (2,3): p_o = 2/3, p_e = 4/9, 0.4.
    Compared label by label, the first was a disagreement and the unsure a fourth pair: 1 of 4. The 3 pairs compared
    are n_agreement_pairs, beside the 4 of n_pairs."""
    verdicts = {"r-1": ("not_applicable", "non_violating"), "r-2": ("violating", "violating"),
                "r-3": ("violating", "unsure"), "r-4": ("non_violating", "violating")}
    forms = [form for response, (judge, person) in verdicts.items()
             for form in (_hazard_form(JUDGE, response, judge),
                          _hazard_form({"type": "human", "id": "h-ana"}, response, person))]
    warehouse = Warehouse.built_from(tmp_path, forms, "--select", "+fct_judge_drift")
    row = warehouse.rows(
        "select n_pairs, n_agreement_pairs, exact_agreement, kappa_unweighted from marts.fct_judge_drift "
        "where judge_id = 'judge-x#1' and dimension = 'hazard.specialized_advice'")
    assert row == [(4, 3, pytest.approx(2 / 3), pytest.approx(0.4))]
