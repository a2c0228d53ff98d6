"""The Leaderboard's "On the same samples, is model A ahead of model B?": what it shows of marts.fct_model_comparisons
is the mart's row (difference, interval, n, verdict), an untested pair says which minimum of the build it missed, a
week where no two models answered the same samples says so, and a filter to one model compares that model."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from evalhouse.report import fmt
from tests.app.conftest import LAST_WEEK, iso_week, run_page
from tests.app.page_parts import chart_asking, chart_subtitle, chart_title, problems
from tests.conftest import Warehouse, instance_record

pytestmark = pytest.mark.slow

COLUMNS = ("model_id, other_model_id, n_shared_samples, mean_difference, difference_ci_low, difference_ci_high, "
           "n_better, n_worse, is_significant, is_better, is_worse, score, other_score, comparison_test, t_statistic, "
           "sign_test_p")


def _pairs(warehouse: Warehouse, evaluation: str, trial_metric: str, week: dt.date) -> dict[tuple[str, str], dict]:
    frame = warehouse.frame(f"select {COLUMNS} from marts.fct_model_comparisons where evaluation_name = ? "
                            "and trial_metric = ? and week_start = ?", [evaluation, trial_metric, week])
    return {(r["model_id"], r["other_model_id"]): r for r in frame.to_dict("records")}


def _metric(at, label_start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def _comparison_chart(at) -> dict:
    specs = [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]
    found = [s for s in specs if chart_title(s).startswith("On the same samples, is ")]
    assert len(found) == 1, [chart_title(s) for s in specs]
    return found[0]


def _comparison_data(at):
    _, frames = chart_asking(at, "On the same samples, is ")
    return next(f for f in frames if "mean_difference" in f.columns)


def _pairs_table(at):
    return next(d.value for d in at.dataframe if "against" in d.value.columns)


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def test_the_pair_shown_is_the_marts_row_and_opens_on_the_weeks_best_two(demo_warehouse, app_env):
    rates = demo_warehouse.rows("select model_id from marts.rpt_weekly_model_changes where evaluation_name = 'gsm8k' "
                                "and week_start = ? order by accuracy desc limit 2", [LAST_WEEK])
    best, second = rates[0][0], rates[1][0]
    pairs = _pairs(demo_warehouse, "gsm8k", "accuracy", LAST_WEEK)
    row = pairs[(best, second)]
    assert row["is_better"] is True and row["n_shared_samples"] == 40  # the demo: gpt-4.1-mini ahead of Llama
    app_env(demo_warehouse.path)
    at = run_page("leaderboard", {"pair_eval": "gsm8k"})
    assert not problems(at), problems(at)
    assert at.selectbox(key="leaderboard.week").value == iso_week(LAST_WEEK)  # the latest complete week
    assert (at.selectbox(key="leaderboard.model_a").value, at.selectbox(key="leaderboard.model_b").value) == (
        best, second)

    assert _metric(at, "A - B") == fmt.signed(row["mean_difference"], 3)
    assert _metric(at, "Shared samples") == "40"
    assert _metric(at, "Samples that differ") == str(row["n_better"] + row["n_worse"])
    assert _metric(at, "Verdict") == "Better"
    said = _captions(at)
    assert f"95% interval {fmt.interval(row['difference_ci_low'], row['difference_ci_high'], 3)}" in said
    assert f"A ahead on {row['n_better']}, B ahead on {row['n_worse']}" in said
    # gsm8k's samples are answered several times: their averaged scores are tested with Student's t
    assert row["comparison_test"] == "paired t"
    assert f"Better: {best} is ahead of {second}; paired t, t = {fmt.z_score(row['t_statistic'])}" in said

    spec = _comparison_chart(at)
    assert chart_title(spec) == f"On the same samples, is {best} ahead of {second}?"
    assert "the 40 samples both answered" in chart_subtitle(spec)
    x_titles = [n["x"]["title"] for n in _walk_encodings(spec) if isinstance(n.get("x"), dict) and "title" in n["x"]]
    assert x_titles and all("pass rate, A minus B" in t for t in x_titles)
    data = _comparison_data(at)
    assert len(data) == 1
    for column in ("mean_difference", "difference_ci_low", "difference_ci_high", "n_shared_samples"):
        assert data[column].iloc[0] == pytest.approx(row[column], abs=1e-12), column

    # Every pair of the week once, from the side ahead, with the mart's numbers.
    table = _pairs_table(at)
    assert len(table) == len(pairs) // 2 == 6
    for _, shown in table.iterrows():
        mart = pairs[(shown["model"], shown["against"])]
        assert mart["mean_difference"] >= 0
        assert shown["difference [95% interval]"] == fmt.with_interval(
            mart["mean_difference"], mart["difference_ci_low"], mart["difference_ci_high"], 3)
        assert shown["shared"] == str(mart["n_shared_samples"])


def _walk_encodings(spec: dict):
    from tests.app.page_parts import walk

    return [node["encoding"] for node in walk(spec) if isinstance(node.get("encoding"), dict)]


def test_an_untested_pair_says_which_minimum_of_the_build_it_missed(demo_warehouse, app_env):
    settings = demo_warehouse.rows("select model_change_min_samples, model_change_min_changed_samples "
                                   "from marts.rpt_build_settings")[0]
    # The demo's basic-math spec: two samples a week, both models on them; label_accuracy of support triage: 12
    # samples shared, too few of them differ.
    math = _pairs(demo_warehouse, "eval_basic_math_v1", "exact_match", LAST_WEEK)
    (a, b), row = sorted(math.items())[0]
    assert row["n_shared_samples"] < settings[0] and row["is_significant"] is None
    app_env(demo_warehouse.path)
    at = run_page("leaderboard", {"pair_eval": "eval_basic_math_v1", "model_a": a, "model_b": b})
    assert not problems(at), problems(at)
    assert _metric(at, "Verdict") == "Not tested"
    expected = f"too few samples to test ({row['n_shared_samples']} shared; a verdict needs {settings[0]})"
    assert expected in _captions(at)
    assert expected in chart_subtitle(_comparison_chart(at))
    assert "not tested" not in set(_pairs_table(at)["verdict"])

    triage = _pairs(demo_warehouse, "support_triage_v1", "label_accuracy", LAST_WEEK)
    (a, b), row = next((k, r) for k, r in sorted(triage.items()) if r["is_significant"] is None
                       and r["n_shared_samples"] >= settings[0] and 0 < r["n_better"] + r["n_worse"] < settings[1])
    at = run_page("leaderboard", {"pair_eval": "support_triage_v1", "pair_metric": "label_accuracy",
                                  "model_a": a, "model_b": b})
    assert not problems(at), problems(at)
    n_differ = row["n_better"] + row["n_worse"]
    assert _metric(at, "Samples that differ") == str(n_differ)
    assert (f"too few samples that differ to test ({n_differ} differ; a verdict needs {settings[1]}); sign test "
            "(p = ") in _captions(at)  # the statistic in brackets: no evidence of anything


def test_a_filter_to_one_model_compares_that_model_and_lists_its_pairs(demo_warehouse, app_env):
    pairs = _pairs(demo_warehouse, "gsm8k", "accuracy", LAST_WEEK)
    best = demo_warehouse.scalar("select model_id from marts.rpt_weekly_model_changes where evaluation_name = "
                                 "'gsm8k' and week_start = ? order by accuracy desc limit 1", [LAST_WEEK])
    model = "acme/chat-7b"
    app_env(demo_warehouse.path)
    at = run_page("leaderboard", {"evaluation": "gsm8k", "model": model})
    assert not problems(at), problems(at)
    # The eval chosen above opens the comparison; the model chosen is A, against the week's best.
    assert at.selectbox(key="leaderboard.pair_eval").value == "gsm8k"
    assert (at.selectbox(key="leaderboard.model_a").value, at.selectbox(key="leaderboard.model_b").value) == (
        model, best)
    assert _metric(at, "A - B") == fmt.signed(pairs[(model, best)]["mean_difference"], 3)
    table = _pairs_table(at)
    assert set(table["model"]) == {model} and len(table) == 3
    for _, shown in table.iterrows():  # from its side, behind or not
        mart = pairs[(model, shown["against"])]
        assert shown["difference [95% interval]"].split()[0] == fmt.num(mart["mean_difference"], 3)


def test_a_week_where_no_two_models_answered_the_same_samples_says_so(tmp_path, app_env):
    """Two models on gsm8k in the same week, on different questions; one model alone on another eval."""
    records = [
        instance_record(model_id=model, evaluation_name=evaluation, sample_id=f"{evaluation}_{model[-2:]}_{i}",
                        evaluation_id=f"{evaluation}/{model.replace('/', '_')}/1763000000.0")
        for evaluation, models in (("gsm8k", ("acme/chat-7b", "acme/chat-13b")), ("mmlu_physics", ("acme/chat-7b",)))
        for model in models for i in range(3)
    ]
    warehouse = Warehouse.built_from(tmp_path, records)
    assert warehouse.scalar("select count(*) from marts.fct_model_comparisons") == 0
    week = warehouse.scalar("select max(week_start) from marts.rpt_weekly_model_changes")
    assert warehouse.scalar("select count(distinct model_id) from marts.rpt_weekly_model_changes "
                            "where evaluation_name = 'gsm8k' and week_start = ?", [week]) == 2
    week_text = iso_week(week)
    app_env(warehouse.path, now=dt.datetime.combine(week + dt.timedelta(days=8), dt.time(7), dt.timezone.utc))
    at = run_page("leaderboard", {"pair_eval": "gsm8k"})
    assert not problems(at), problems(at)
    said = " ".join(i.value for i in at.info)
    assert (f"No two models answered the same gsm8k samples (score) in {week_text}: 2 models have scored trials "
            "that week, but no two of them share two or more samples") in said
    assert not [s for s in at.get("vega_lite_chart") if chart_title(json.loads(s.proto.spec)).startswith("On the same")]

    at = run_page("leaderboard", {"pair_eval": "mmlu_physics"})
    assert not problems(at), problems(at)
    assert (f"No comparison for mmlu_physics (score) in {week_text}: only acme/chat-7b has scored trials that "
            "week") in " ".join(i.value for i in at.info)


# What a 1400 px page gives the pairs table beside the sidebar (measured in Chromium): its columns' widths add up to
# no more, so the verdict and every column after it are read without scrolling.
TABLE_PX_AT_1400 = 930


def test_the_pairs_table_puts_the_verdict_beside_the_models_with_its_statistic_and_fits_1400_px(demo_warehouse,
                                                                                                  app_env):
    settings = demo_warehouse.rows("select model_change_min_samples, model_change_min_changed_samples "
                                   "from marts.rpt_build_settings")[0]
    pairs = _pairs(demo_warehouse, "acme_groundedness_suite/groundedness", "groundedness", LAST_WEEK)
    app_env(demo_warehouse.path)
    at = run_page("leaderboard", {"pair_eval": "acme_groundedness_suite/groundedness"})
    assert not problems(at), problems(at)
    element = next(d for d in at.dataframe if "against" in d.value.columns)
    table = element.value
    assert list(table.columns)[:3] == ["model", "against", "verdict"]
    widths = {name: config["width"] for name, config in json.loads(element.proto.columns).items()
              if name in table.columns}
    assert set(widths) == set(table.columns) and sum(widths.values()) <= TABLE_PX_AT_1400, widths
    words = set()
    for _, shown in table.iterrows():
        mart = pairs[(shown["model"], shown["against"])]
        n_differ = mart["n_better"] + mart["n_worse"]
        if mart["is_significant"] is None:  # why, with the minimum missed; no statistic, which is no evidence
            assert shown["verdict"] in (f"untested: {n_differ} differ, needs {settings[1]}",
                                        f"untested: {mart['n_shared_samples']} shared, needs {settings[0]}"), shown
        else:  # the word and the statistic it rests on (every groundedness verdict is 0 or 1: the sign test)
            word = "Better" if mart["is_better"] else "Worse" if mart["is_worse"] else "not significant"
            assert mart["comparison_test"] == "sign test"
            assert shown["verdict"] == f"{word} ({fmt.p_value(mart['sign_test_p'])})", shown
        words.add(shown["verdict"].split(" ")[0])
        assert shown["differ (+ / -)"] == f"{n_differ} ({mart['n_better']} / {mart['n_worse']})"
    assert {"Better", "untested:", "not"} <= words, words  # the demo's week has all three


def test_the_pairs_say_they_compare_pass_rate_whatever_the_metric_chosen_above(demo_warehouse, app_env):
    """fct_model_comparisons pairs samples on their trials' pass verdicts (weekly_sample_scores averages is_correct):
    with mean_score chosen above, the section says it does not follow it."""
    app_env(demo_warehouse.path)
    at = run_page("leaderboard")
    assert not problems(at), problems(at)
    assert "Compared on pass rate only (the share of each sample's trials marked as passed)" in _captions(at)
    assert not [i for i in at.info if "pass rate only" in i.value]

    at = run_page("leaderboard", {"metric": "mean_score"})
    assert not problems(at), problems(at)
    said = " ".join(i.value for i in at.info)
    assert ("Compared on pass rate only (the share of each sample's trials marked as passed): "
            "marts.fct_model_comparisons pairs samples on their trials' pass verdicts, not on mean_score, so this "
            "section does not follow the Metric chosen above (mean_score).") in said
