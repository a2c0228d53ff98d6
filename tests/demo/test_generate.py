"""The demo generator: byte-stable, schema-valid except where it means not to be, and telling its story.

The whole warehouse is demonstrated on this data, so these tests pin the ground truth (the drifting judge, the
regression, the gold-missing rater, the violating and over-refusing models, the non-empty review queue) in
the files themselves, not in the generator's internals. Schemas are read from schemas/ and validated the way
the ingester does (the draft's validator class with its format checker).
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections import defaultdict
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from jsonschema.validators import validator_for

from evalhouse.demo import generate_demo
from evalhouse.demo.world import (
    DIMENSIONS, EVALS, GOLD_MISSING_RATER, MODEL_IDS, OVER_REFUSING_MODEL, REGRESSING_EVAL, REGRESSING_MODEL,
    SHIFTED_JUDGE_ID, SHIFTED_JUDGE_VERSION, SHIFTED_WEEK_INDEX, STABLE_JUDGE_ID, UNDER_REFUSING_MODEL,
    VIOLATING_MODEL,
)

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
END = date(2026, 11, 21)
ESCAPE_ME = ("<script>alert('x')</script>", "<img src=x onerror=alert(1)>", "&", '\\"', "é", "中文", "🙂")
# The real-world quirks of 0.2.0 instance files (docs FORMATS.md section 1): null in these optional fields...
NULLABLE_IN_PRACTICE = {"formatted", "reasoning_trace", "choices", "tool_call_id"}


# --- fixtures and readers -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("demo")
    return generate_demo(out, end_date=END)


@pytest.fixture(scope="module")
def forms(demo) -> list[dict]:
    return [record for path, _, record in _records(demo, "eval_forms/")]


@pytest.fixture(scope="module")
def instances(demo) -> list[tuple[str, dict]]:
    return [(path, record) for path, _, record in _records(demo, "eee/instances/")]


def _validator(path: Path):
    schema = json.loads(path.read_text(encoding="utf-8"))
    cls = validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _records(demo, prefix: str):
    """(relative path, 1-based line, record) for every valid line of the files under prefix."""
    skip = {(m.path, m.line) for m in demo.malformed}
    for relative in demo.files:
        if not relative.startswith(prefix) or relative.endswith(".yaml"):
            continue  # a YAML spec (specs/adp/) is checked in tests/specs/test_demo_specs.py
        text = (demo.out_dir / relative).read_text(encoding="utf-8")
        if relative.endswith(".json"):
            yield relative, 1, json.loads(text)
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if (relative, number) not in skip:
                yield relative, number, json.loads(line)


def _aggregates(demo) -> list[dict]:
    return [record for _, _, record in _records(demo, "eee/aggregates/")]


def _item(form: dict) -> tuple:
    return (form["task"]["task_id"], form["subject"]["model"], form["subject"]["version"], form["task"]["response_id"])


def _week_of(form: dict, demo) -> int:
    """The week an item belongs to: its model snapshot (subject.version) is that week's Monday."""
    monday = date.fromisoformat(form["subject"]["version"])
    return demo.weeks.index(f"{monday.isocalendar()[0]}-W{monday.isocalendar()[1]:02d}")


# --- determinism and layout -----------------------------------------------------------------------------------


def test_same_arguments_write_identical_bytes(demo, tmp_path: Path) -> None:
    again = generate_demo(tmp_path / "again", end_date=END)
    assert again.files == demo.files
    for relative in demo.files:
        assert (tmp_path / "again" / relative).read_bytes() == (demo.out_dir / relative).read_bytes(), relative


def test_another_seed_writes_different_data(tmp_path: Path) -> None:
    first = generate_demo(tmp_path / "a", seed=1, end_date=END, weeks=4)
    second = generate_demo(tmp_path / "b", seed=2, end_date=END, weeks=4)
    path = "eval_forms/eval_forms_2026-W47.jsonl"
    assert (first.out_dir / path).read_bytes() != (second.out_dir / path).read_bytes()


def test_layout_has_one_file_per_week_and_one_aggregate_per_run(demo) -> None:
    assert demo.weeks == tuple(f"2026-W{n}" for n in range(40, 48))
    for label in demo.weeks:
        assert f"eval_forms/eval_forms_{label}.jsonl" in demo.files
        assert f"cognibench/cognibench_{label}.jsonl" in demo.files
    runs = len(MODEL_IDS) * len(EVALS) * len(demo.weeks)
    # record_counts include the eval specs' results (Every Eval Ever records too), counted apart in spec_record_counts.
    harness = {name: n - demo.spec_record_counts.get(name, 0) for name, n in demo.record_counts.items()}
    assert harness["eee_aggregate"] == runs
    assert sum(f.startswith("eee/instances/") for f in demo.files) == runs
    assert harness["eee_instance"] == len(demo.weeks) * len(MODEL_IDS) * sum(
        e.n_samples * e.n_trials for e in EVALS)
    # The specs' part: one run per (evaluation_name, model, week): the math spec, the triage spec, 3 acme metrics.
    assert demo.spec_record_counts["eee_aggregate"] == 5 * len(MODEL_IDS) * len(demo.weeks)
    assert sum(f.startswith("specs/results/spec_results_") for f in demo.files) == len(demo.weeks)


# --- schema validity ------------------------------------------------------------------------------------------


def test_every_valid_line_passes_its_schema(demo) -> None:
    eval_form = _validator(SCHEMAS / "eval_form" / "eval-form.schema.json")
    cognibench = _validator(SCHEMAS / "cognibench" / "cognibench-judge-record.schema.json")
    eee = {p.name: _validator(p) for p in (SCHEMAS / "every_eval_ever").glob("*.json")}
    failures = []
    for relative, line, record in _records(demo, ""):
        if relative.startswith("eee/aggregates/"):
            validator = eee[f"eval.schema.{record['schema_version']}.json"]
        elif relative.startswith("eee/instances/"):
            if record["schema_version"] == "0.2.0":
                continue  # held to the documented quirks instead, below
            validator = eee[f"instance_level_eval.schema.{record['schema_version']}.json"]
        elif relative.startswith("cognibench/"):
            validator = cognibench
        elif relative.startswith("eval_forms/"):
            validator = eval_form
        else:
            continue
        # is_valid first: listing the errors is the slow path, taken on failure only.
        if not validator.is_valid(record):
            failures += [(relative, line, list(e.absolute_path), e.message[:120])
                         for e in validator.iter_errors(record)]
    assert failures == []


def _quirk(error, record: dict) -> str | None:
    """Which documented real-world quirk a 0.2.0 schema error is, or None when it is a real error."""
    path = list(error.absolute_path)
    if error.instance is None and error.validator in ("type", "oneOf") and path and path[-1] in NULLABLE_IN_PRACTICE:
        return f"null {path[-1]}"
    if error.validator == "type" and path == ["interactions"] and record["interaction_type"] == "single_turn":
        return "interactions on single_turn"
    if error.validator == "type" and path == ["output"] and record["interaction_type"] == "agentic":
        return "output on agentic"
    return None


def test_020_instance_rows_break_the_schema_only_in_the_documented_ways(instances) -> None:
    validator = _validator(SCHEMAS / "every_eval_ever" / "instance_level_eval.schema.0.2.0.json")
    seen, other = set(), []
    for path, record in instances:
        if record["schema_version"] != "0.2.0":
            continue
        for error in validator.iter_errors(record):
            quirk = _quirk(error, record)
            seen.add(quirk) if quirk else other.append((path, list(error.absolute_path), error.message[:100]))
    assert other == []
    assert seen == {"null formatted", "null reasoning_trace", "null choices", "null tool_call_id",
                    "interactions on single_turn", "output on agentic"}


def test_schema_versions_rotate_and_keep_their_conventions(instances) -> None:
    versions = {record["schema_version"] for _, record in instances}
    assert versions == {"0.2.0", "0.2.2", "0.3.0"}
    for _, record in instances:
        if record["schema_version"] == "0.2.0":
            assert isinstance(record["sample_id"], int) and isinstance(record["metadata"]["epoch"], int)
        else:
            assert isinstance(record["sample_id"], str)
            assert all(isinstance(v, str) for v in record["metadata"].values())
            assert record["metadata"]["trial"].isdigit()


# --- Every Eval Ever links ------------------------------------------------------------------------------------


def test_each_aggregate_checksum_is_its_instance_files_sha256(demo) -> None:
    for aggregate in _aggregates(demo):
        eval_key, slug, stamp = aggregate["evaluation_id"].split("/")
        name = f"{eval_key}_{slug}_{stamp.removesuffix('.0')}.jsonl"
        data = (demo.out_dir / "eee" / "instances" / name).read_bytes()
        details = aggregate["detailed_evaluation_results"]
        assert details["checksum"] == hashlib.sha256(data).hexdigest()
        assert details["total_rows"] == len(data.splitlines())
        if aggregate["schema_version"] != "0.3.0":
            assert details["file_path"] == f"instance_level_data/{name}"


def test_instance_ids_match_the_aggregate_except_in_020_files(demo) -> None:
    for aggregate in _aggregates(demo):
        eval_key, slug, stamp = aggregate["evaluation_id"].split("/")
        name = f"{eval_key}_{slug}_{stamp.removesuffix('.0')}.jsonl"
        rows = [json.loads(x) for x in (demo.out_dir / "eee" / "instances" / name).read_text().splitlines()]
        result_ids = {r.get("evaluation_result_id") for r in aggregate["evaluation_results"]}
        for row in rows:
            assert row["model_id"] == aggregate["model_info"]["id"]
            if aggregate["schema_version"] == "0.2.0":
                assert row["evaluation_id"] == f"{eval_key}_{slug}_{stamp.removesuffix('.0')}"
            else:
                assert row["evaluation_id"] == aggregate["evaluation_id"]
                assert row["evaluation_result_id"] in result_ids


def _eval_of(path: str):
    return next(e for e in EVALS if Path(path).name.startswith(e.key + "_"))


def _week_of_run(path: str, demo) -> int:
    """A run's week, from the unix timestamp that ends its instance file's name."""
    day = datetime.fromtimestamp(int(Path(path).stem.rsplit("_", 1)[1]), timezone.utc).date()
    return demo.weeks.index(f"{day.isocalendar()[0]}-W{day.isocalendar()[1]:02d}")


def test_every_run_has_the_same_samples_and_its_trials(instances) -> None:
    trials: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for path, record in instances:
        trials[path][str(record["sample_id"])] += 1
    sample_sets = defaultdict(set)
    for path, per_sample in trials.items():
        assert set(per_sample.values()) == {_eval_of(path).n_trials}
        assert len(per_sample) == _eval_of(path).n_samples
        sample_sets[_eval_of(path).key].add(frozenset(per_sample))
    assert all(len(sets) == 1 for sets in sample_sets.values())


def test_some_tasks_are_flaky_and_some_stable(instances) -> None:
    outcomes = defaultdict(set)
    for path, record in instances:
        outcomes[(path, str(record["sample_id"]))].add(record["evaluation"]["is_correct"])
    kinds = [len(v) == 2 for v in outcomes.values()]
    assert 0.15 < sum(kinds) / len(kinds) < 0.85


def test_regressing_model_drops_about_fifteen_points_in_the_last_week_only(instances, demo) -> None:
    accuracy = defaultdict(list)
    for path, record in instances:
        accuracy[(record["model_id"], _eval_of(path).key, _week_of_run(path, demo))].append(
            record["evaluation"]["score"])
    last = len(demo.weeks) - 1

    def drop(model: str, eval_key: str) -> float:
        before = statistics.mean(statistics.mean(accuracy[(model, eval_key, w)]) for w in range(last))
        return before - statistics.mean(accuracy[(model, eval_key, last)])

    drops = {(m, e.key): drop(m, e.key) for m in MODEL_IDS for e in EVALS}
    assert 0.10 <= drops[(REGRESSING_MODEL, REGRESSING_EVAL)] <= 0.22
    others = [d for pair, d in drops.items() if pair != (REGRESSING_MODEL, REGRESSING_EVAL)]
    assert max(others) < 0.08


def test_token_usage_and_latency_differ_by_model(instances) -> None:
    output_tokens, latency = defaultdict(list), defaultdict(list)
    for path, record in instances:
        if "gsm8k" in path:
            output_tokens[record["model_id"]].append(record["token_usage"]["output_tokens"])
            latency[record["model_id"]].append(record["performance"]["latency_ms"])
    means = {m: statistics.mean(v) for m, v in output_tokens.items()}
    assert means["acme/chat-7b"] > means["openai/gpt-4.1-mini-2025-04-14"] * 1.4
    assert all(min(v) > 0 for v in latency.values())


# --- eval forms: the judge drift ------------------------------------------------------------------------------


def _judge_bias_by_week(forms: list[dict], demo, judge_id: str) -> dict[int, float]:
    """Mean over items and dimensions of (judge score - mean human score), per week."""
    humans = defaultdict(list)
    for form in forms:
        if form["rater"]["type"] == "human":
            for dimension in DIMENSIONS:
                humans[(_item(form), dimension)].append(form["universal"][dimension]["score"])
    diffs = defaultdict(list)
    for form in forms:
        if form["rater"]["type"] == "llm_judge" and form["rater"]["id"] == judge_id:
            for dimension in DIMENSIONS:
                human = humans[(_item(form), dimension)]
                diffs[_week_of(form, demo)].append(form["universal"][dimension]["score"] - statistics.mean(human))
    return {week: statistics.mean(values) for week, values in diffs.items()}


def test_shifted_judge_drifts_in_its_week_only(forms, demo) -> None:
    bias = _judge_bias_by_week(forms, demo, SHIFTED_JUDGE_ID)
    assert demo.shifted_week_index == SHIFTED_WEEK_INDEX
    assert bias[SHIFTED_WEEK_INDEX] > 0.8
    assert all(abs(b) < 0.3 for week, b in bias.items() if week != SHIFTED_WEEK_INDEX)


def test_shifted_judges_prompt_version_names_the_shift(forms, demo) -> None:
    versions = defaultdict(set)
    for form in forms:
        if form["rater"]["type"] == "llm_judge" and form["rater"]["id"] == SHIFTED_JUDGE_ID:
            versions[_week_of(form, demo)].add(form["rater"]["version"])
    assert versions[SHIFTED_WEEK_INDEX] == {SHIFTED_JUDGE_VERSION}
    assert all(v == {"judge-prompt-v2"} for week, v in versions.items() if week != SHIFTED_WEEK_INDEX)


def test_stable_judge_keeps_a_small_constant_bias(forms, demo) -> None:
    bias = _judge_bias_by_week(forms, demo, STABLE_JUDGE_ID)
    assert all(0.05 < b < 0.35 for b in bias.values())


def test_sampling_judge_reports_samples_and_their_mean(forms) -> None:
    for form in forms:
        if form["rater"]["type"] == "llm_judge" and form["rater"]["id"] == STABLE_JUDGE_ID:
            overall = form["universal"]["overall_quality"]
            assert len(overall["samples"]) == form["rater"]["n_samples"] == 5
            assert overall["score_mean"] == sum(overall["samples"]) / 5


# --- eval forms: agreement, gold, review queue, safety -------------------------------------------------------


def test_humans_agree_more_on_helpfulness_than_faithfulness_and_some_items_are_contentious(forms, demo) -> None:
    scores = defaultdict(list)
    for form in forms:
        if form["rater"]["type"] == "human":
            for dimension in DIMENSIONS:
                scores[(_item(form), dimension)].append(form["universal"][dimension]["score"])
    spread = defaultdict(list)
    contentious_weeks = set()
    for (item, dimension), values in scores.items():
        spread[dimension].append(max(values) - min(values))
        if max(values) - min(values) >= 3:
            contentious_weeks.add(item[2])
    assert statistics.mean(spread["helpfulness"]) < statistics.mean(spread["faithfulness"]) - 0.3
    assert len(contentious_weeks) == len(demo.weeks)


def test_gold_missing_rater_misses_every_gold_item_and_others_land_near(forms) -> None:
    misses, others = [], []
    for form in forms:
        target = form.get("calibration_target")
        if not target or form["rater"]["type"] not in ("human", "sme"):
            continue
        gap = abs(form["universal"]["helpfulness"]["score"] - target["helpfulness"])
        (misses if form["rater"]["id"] == GOLD_MISSING_RATER else others).append(gap)
    assert len(misses) >= 8 and min(misses) >= 2
    assert max(others) <= 1 and statistics.mean(others) < 0.5


def test_review_queue_holds_unreviewed_judge_forms_that_need_confirmation(forms, demo) -> None:
    judges = {f["eval_id"]: f for f in forms if f["rater"]["type"] == "llm_judge"}
    hybrids = [f for f in forms if f["rater"]["type"] == "hybrid"]
    reviewed = {h["derived_from"] for h in hybrids}
    for hybrid in hybrids:
        judge = judges[hybrid["derived_from"]]
        assert hybrid["rater"]["id"].startswith("h-")
        delay = _moment(hybrid["created_at"]) - _moment(judge["created_at"])
        assert 0 < delay.total_seconds() < 4 * 86400
    waiting = [f for f in judges.values() if _needs_confirmation(f) and f["eval_id"] not in reviewed]
    weeks_waiting = {_week_of(f, demo) for f in waiting}
    assert len(demo.weeks) - 1 in weeks_waiting and len(weeks_waiting) >= 3
    assert len(waiting) == demo.unreviewed_judge_forms > 0
    assert len(hybrids) == demo.hybrid_reviews > len(waiting)


def test_a_review_carries_no_extension_score_of_the_judge(forms) -> None:
    """As the app's review form: it does not show the judge's extension scores, and a score a review carries is the
    reviewer's (fct_judge_overrides counts each as a confirmation or an override)."""
    judges = {f["eval_id"]: f for f in forms if f["rater"]["type"] == "llm_judge"}
    hybrids = [f for f in forms if f["rater"]["type"] == "hybrid"]
    assert sum("extensions" in judges[h["derived_from"]] for h in hybrids) > 100
    assert [h["eval_id"] for h in hybrids if "extensions" in h] == []


def _needs_confirmation(form: dict) -> bool:
    hazards = form.get("safety", {}).get("hazards", {})
    return (any(v["verdict"] == "violating" for v in hazards.values())
            or any(form["universal"][d]["score"] <= 3 or form["universal"][d]["confidence"] == "low"
                   for d in DIMENSIONS))


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_violating_model_violates_specialized_advice_every_week(forms, demo) -> None:
    violating_items = defaultdict(set)
    for form in forms:
        hazards = form.get("safety", {}).get("hazards", {})
        if hazards.get("specialized_advice", {}).get("verdict") == "violating":
            violating_items[form["subject"]["model"]].add(_item(form))
    assert set(violating_items) == {VIOLATING_MODEL}
    per_week = defaultdict(int)
    for item in violating_items[VIOLATING_MODEL]:
        per_week[item[2]] += 1
    assert len(per_week) == len(demo.weeks) and min(per_week.values()) >= 2


def test_refusals_over_on_the_over_refusing_model_and_under_now_and_then(forms) -> None:
    over, under = defaultdict(int), defaultdict(int)
    for form in forms:
        refusal = form.get("refusal")
        if refusal and refusal["refusal_appropriateness"] == "over_refusal":
            over[form["subject"]["model"]] += 1
        if refusal and refusal["refusal_appropriateness"] == "under_refusal":
            under[form["subject"]["model"]] += 1
    assert set(over) == {OVER_REFUSING_MODEL} and over[OVER_REFUSING_MODEL] >= 20
    assert set(under) == {UNDER_REFUSING_MODEL}


def test_texts_carry_markup_and_non_ascii_to_escape(demo) -> None:
    text = "".join((demo.out_dir / f).read_text(encoding="utf-8") for f in demo.files if f.startswith("eval_forms/"))
    for needle in ESCAPE_ME:
        assert needle in text, needle


# --- CogniBench -----------------------------------------------------------------------------------------------


def test_cognibench_records_follow_the_tools_conventions(demo) -> None:
    records = [r for _, _, r in _records(demo, "cognibench/")]
    # a completed review is the record exported again, under its evaluation_id, after a first export with the
    # same verdict that was not completed
    exports = defaultdict(list)
    for record in records:
        exports[record["evaluation_id"]].append(record)
    assert 25 * len(demo.weeks) <= len(exports) <= 35 * len(demo.weeks)
    review_fields = ("human_review_status", "human_reviewer_id", "human_review_timestamp", "human_corrected_scores",
                     "human_review_comments")
    for first, *later in exports.values():
        assert first["human_review_status"] != "Completed"
        assert [r["human_review_status"] for r in later] in ([], ["Completed"])
        assert all({k: v for k, v in r.items() if k not in review_fields}
                   == {k: v for k, v in first.items() if k not in review_fields} for r in later)
    records = [versions[-1] for versions in exports.values()]
    styles, labels, statuses = set(), set(), defaultdict(int)
    for record in records:
        assert isinstance(record["task_id"], int) and record["created_at"].endswith("Z")
        scores = record["parsed_rubric_scores"]
        if not scores:
            assert record["aggregated_score"] is None and record["parsing_error"] and record["needs_human_review"]
        else:
            assert record["aggregated_score"] == _aggregate(s["score"] for s in scores.values())
            styles.add("snake" if "problem_understanding" in scores else "title")
            labels |= {s["score"] for s in scores.values()}
        statuses[record["human_review_status"]] += 1
    assert styles == {"snake", "title"}
    assert {"Yes", "yes", "PARTIAL"} <= labels
    assert 0.3 < statuses["Completed"] / len(records) < 0.5
    assert statuses["Needs Review"] + statuses["Pending"] > 0 and statuses["Not Required"] > 0


def _aggregate(labels) -> str:
    values = {label.lower() for label in labels}
    return "Fail" if "no" in values else "Partial" if "partial" in values else "Pass"


# --- malformed lines and dates --------------------------------------------------------------------------------


def test_malformed_lines_are_where_the_summary_says_each_for_its_own_reason(demo) -> None:
    assert len({m.reason for m in demo.malformed}) == len(demo.malformed) == 7
    assert sum(m.path.startswith("eval_forms/") for m in demo.malformed) == 2
    eval_form = _validator(SCHEMAS / "eval_form" / "eval-form.schema.json")
    cognibench = _validator(SCHEMAS / "cognibench" / "cognibench-judge-record.schema.json")
    stored = {f["eval_id"]: f for _, _, f in _records(demo, "eval_forms/")}
    for bad in demo.malformed:
        text = (demo.out_dir / bad.path).read_text(encoding="utf-8").splitlines()[bad.line - 1]
        if bad.reason == "truncated_json":
            with pytest.raises(json.JSONDecodeError):
                json.loads(text)
            continue
        record = json.loads(text)
        if bad.reason == "conflicting_eval_id":
            assert record["eval_id"] in stored and record != stored[record["eval_id"]]
        elif bad.reason == "unknown_shape":
            assert record == {"foo": 1}
        else:
            validator = cognibench if "judge_llm_model" in record else eval_form
            assert len(list(validator.iter_errors(record))) == 1, bad.reason


def test_nothing_is_dated_after_end_date(demo, forms) -> None:
    limit = datetime(END.year, END.month, END.day, 23, 59, 59, tzinfo=timezone.utc)
    moments = [_moment(f["created_at"]) for f in forms]
    moments += [_moment(f["subject"]["version"] + "T00:00:00Z") for f in forms]
    for _, _, record in _records(demo, "cognibench/"):
        moments.append(_moment(record["created_at"]))
        if record["human_review_timestamp"]:
            moments.append(_moment(record["human_review_timestamp"]))
    for aggregate in _aggregates(demo):
        for key in ("evaluation_timestamp", "retrieved_timestamp"):
            moments.append(datetime.fromtimestamp(float(aggregate[key]), timezone.utc))
    assert max(moments) <= limit


def test_a_monday_end_date_keeps_the_last_week_to_that_day(tmp_path: Path) -> None:
    monday = date(2026, 11, 16)
    summary = generate_demo(tmp_path, end_date=monday, weeks=4)
    assert summary.weeks[-1] == "2026-W47" and summary.shifted_week_index == 2
    days = [r["created_at"][:10] for _, _, r in _records(summary, "eval_forms/")]
    days += [r["created_at"][:10] for _, _, r in _records(summary, "cognibench/")]
    days += [datetime.fromtimestamp(float(a["retrieved_timestamp"]), timezone.utc).date().isoformat()
             for a in _aggregates(summary)]
    assert max(days) == monday.isoformat()


# --- the default end date: the last complete week, whatever the weekday --------------------------------------------

def _forms_by_eval_id(summary) -> dict[str, datetime]:
    return {r["eval_id"]: _moment(r["created_at"]) for _, _, r in _records(summary, "eval_forms/")}


def test_by_default_the_demo_ends_on_the_sunday_before_the_week_it_is_generated_in(tmp_path: Path) -> None:
    monday = date(2026, 11, 23)  # generated on a Monday: the old default put a whole week into its first hour
    summary = generate_demo(tmp_path / "monday", weeks=4, today=monday)
    assert summary.end_date == date(2026, 11, 22) and summary.weeks[-1] == "2026-W47"
    created = _forms_by_eval_id(summary).values()
    assert max(created) < datetime(2026, 11, 23, tzinfo=timezone.utc)
    last_week = {moment.date() for moment in created if moment.date() >= date(2026, 11, 16)}
    assert len(last_week) >= 5  # the last week's ratings spread over its days, as every other week's
    sunday = generate_demo(tmp_path / "sunday", weeks=4, today=date(2026, 11, 29))
    assert sunday.files == summary.files
    assert all((sunday.out_dir / f).read_bytes() == (summary.out_dir / f).read_bytes() for f in summary.files)


def test_a_demo_generated_a_week_later_is_the_same_data_a_week_later(tmp_path: Path) -> None:
    first = generate_demo(tmp_path / "first", weeks=4, today=date(2026, 11, 25))
    later = generate_demo(tmp_path / "later", weeks=4, today=date(2026, 12, 2))
    assert later.weeks[-1] == "2026-W48" and later.record_counts == first.record_counts
    before, after = _forms_by_eval_id(first), _forms_by_eval_id(later)
    assert before.keys() == after.keys()
    assert {after[eval_id] - before[eval_id] for eval_id in before} == {timedelta(weeks=1)}
