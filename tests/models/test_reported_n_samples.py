"""A reported result's n_samples is the samples its score is over, not its dataset's size, and its interval is built on
that n. Built from the real Every Eval Ever files of tests/fixtures/every_eval_ever (copied from the shared reference
set: see PROVENANCE.md there): ai2_arc reports a score over sample_ids [1, 2, 3] of a dataset of samples_number 2376,
GAIA one over 2 sample ids of 165. Variants of them made here take out the published interval, so that the interval
is the warehouse's own, from the reported standard error and n; three more report values the schema accepts and no
result can have (a negative standard error or count, an interval that leaves out its score), which are set aside; three
publish an interval with its confidence_level (0.9, with and without a standard error, and 0.95)."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from tests.conftest import CAUTIOUS, FIXTURES, Warehouse, built_warehouse_path

pytestmark = pytest.mark.slow

EXAMPLES = FIXTURES / "every_eval_ever"
ARC = EXAMPLES / "9563d156-9b7e-41b9-b50a-6430637937ed.json"
ARC_INSTANCES = EXAMPLES / "ai2_arc_ollama_qwen2.5-0.5b_1761001924.jsonl"
GAIA = EXAMPLES / "7c57f847-1098-4472-9fd8-75a7f3995ed0.json"
GAIA_INSTANCES = EXAMPLES / "GAIA_openai_azure_gpt-4.1-mini-2025-04-14_1770463617.jsonl"
MARTS = ("--select", "+fct_benchmark_results", *CAUTIOUS)
TOLERANCE = 1e-9


def _wilson(successes: float, n: float, z: float = 1.96) -> tuple[float, float]:
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _variant(path: Path, tag: str, change) -> dict:
    """The aggregate at path as a run of its own (its evaluation_id tagged), unlinked from its instance file, with
    its one result's published interval taken out and change(result) applied."""
    record = copy.deepcopy(json.loads(path.read_text()))
    record["evaluation_id"] += f"/{tag}"
    del record["detailed_evaluation_results"]
    (result,) = record["evaluation_results"]
    del result["score_details"]["confidence_interval"]
    change(result)
    return record


def _arc_with_standard_error(result: dict) -> None:
    # the standard error of 1 right of 3 (sqrt(var_samp / n) = 1/3), as the computed row beside it has it; an id
    # listed twice is one sample
    result["score_details"]["uncertainty"] = {"standard_error": {"value": 1 / 3}}
    result["source_data"]["sample_ids"] = [1, 2, 3, 3]


def _gaia_with_standard_error_0(result: dict) -> None:
    result["score_details"]["uncertainty"] = {"standard_error": {"value": 0.0}}


def _arc_counted_by_num_samples(result: dict) -> None:
    del result["source_data"]["sample_ids"]
    result["score_details"]["uncertainty"] = {"standard_error": {"value": 1 / 3}, "num_samples": 3}


def _arc_with_its_dataset_size_only(result: dict) -> None:
    # the count the Inspect converter writes when it read no samples: 0, no count
    del result["source_data"]["sample_ids"]
    result["score_details"]["uncertainty"] = {"standard_error": {"value": 1 / 3}, "num_samples": 0}


def _arc_with_negative_counts_and_standard_error(result: dict) -> None:
    # integers and a number the schema accepts, which no result can have
    del result["source_data"]["sample_ids"]
    result["source_data"]["samples_number"] = -5
    result["score_details"]["uncertainty"] = {"standard_error": {"value": -0.1}, "num_samples": -3}


def _arc_with_an_interval_leaving_out_its_score(result: dict) -> None:
    result["score_details"]["confidence_interval"] = {"lower": 0.5, "upper": 0.9}  # the score is 1/3


def _arc_with_an_interval_the_wrong_way_round(result: dict) -> None:
    result["score_details"]["confidence_interval"] = {"lower": 0.9, "upper": 0.1}


def _arc_with_a_90_percent_interval_and_a_standard_error(result: dict) -> None:
    result["score_details"]["uncertainty"] = {
        "standard_error": {"value": 1 / 3},
        "confidence_interval": {"lower": 0.1, "upper": 0.7, "confidence_level": 0.9}}


def _arc_with_a_90_percent_interval_only(result: dict) -> None:
    result["score_details"]["uncertainty"] = {
        "confidence_interval": {"lower": 0.1, "upper": 0.7, "confidence_level": 0.9}}


def _arc_with_a_95_percent_interval(result: dict) -> None:
    result["score_details"]["uncertainty"] = {
        "confidence_interval": {"lower": 0.05, "upper": 0.8, "confidence_level": 0.95}}


VARIANTS = {
    "with_se": (ARC, _arc_with_standard_error),
    "with_se_0": (GAIA, _gaia_with_standard_error_0),
    "num_samples": (ARC, _arc_counted_by_num_samples),
    "dataset_only": (ARC, _arc_with_its_dataset_size_only),
    "negative": (ARC, _arc_with_negative_counts_and_standard_error),
    "outside": (ARC, _arc_with_an_interval_leaving_out_its_score),
    "reversed": (ARC, _arc_with_an_interval_the_wrong_way_round),
    "level_90_se": (ARC, _arc_with_a_90_percent_interval_and_a_standard_error),
    "level_90": (ARC, _arc_with_a_90_percent_interval_only),
    "level_95": (ARC, _arc_with_a_95_percent_interval),
}
UNUSABLE = {"negative": "standard_error n_samples dataset_n_samples", "outside": "confidence_interval",
            "reversed": "confidence_interval"}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("reported_n_samples")


@pytest.fixture(scope="module")
def warehouse(root) -> Warehouse:
    made = []
    for tag, (path, change) in VARIANTS.items():
        made.append(root / f"{tag}.json")
        made[-1].write_text(json.dumps(_variant(path, tag, change)))
    built = Warehouse(built_warehouse_path(root))
    assert built.ingest(ARC, ARC_INSTANCES, GAIA, GAIA_INSTANCES, *made).quarantined == 0
    built.build(*MARTS, target_path=root / "target", write_json=True)
    return built


def _results(warehouse: Warehouse, run_id_like: str) -> dict[str, dict]:
    frame = warehouse.frame(
        "select * from marts.fct_benchmark_results where run_id like ? and metric_name = 'accuracy'", [run_id_like])
    return {row["result_origin"]: row for row in frame.to_dict("records")}


def _is_null(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


@pytest.mark.parametrize(("run", "n", "dataset_n"), [("ai2_arc/%/1761001924.0", 3, 2376),
                                                     ("GAIA/%/1770463617.0", 2, 165)])
def test_a_reported_result_counts_the_sample_ids_it_lists_not_its_dataset(warehouse, run, n, dataset_n):
    rows = _results(warehouse, run)
    assert (rows["reported"]["n_samples"], rows["reported"]["dataset_n_samples"]) == (n, dataset_n)
    # the same samples as the trials computed beside it, which have no dataset size of their own
    assert rows["computed"]["n_samples"] == n and _is_null(rows["computed"]["dataset_n_samples"])


def test_a_published_interval_stays_as_published(warehouse):
    reported = _results(warehouse, "ai2_arc/%/1761001924.0")["reported"]
    assert reported["interval_method"] == "reported"
    assert (reported["ci_low"], reported["ci_high"]) == (0.0, pytest.approx(0.9866666666666668, abs=TOLERANCE))


def test_a_published_interval_at_another_level_is_never_shown_as_the_95_percent_one(warehouse):
    """ci_low and ci_high are a 95% interval on every row, so that results compare. A result publishing a 90%
    interval (uncertainty.confidence_interval.confidence_level 0.9) read as if it were one, narrower than the 95% one
    its standard error gives: with the standard error the interval is built from it, Wilson's on 3 as the computed
    row's; without one the result has no interval. A stated 0.95 is shown as published. The intermediate model keeps
    the published ends and their level."""
    with_se = _results(warehouse, "ai2_arc/%/level_90_se")["reported"]
    assert with_se["interval_method"] == "wilson_from_reported_se"
    assert (with_se["ci_low"], with_se["ci_high"]) == pytest.approx(_wilson(1, 3), abs=TOLERANCE)
    alone = _results(warehouse, "ai2_arc/%/level_90")["reported"]
    assert alone["score"] == pytest.approx(1 / 3)
    assert _is_null(alone["interval_method"]) and _is_null(alone["ci_low"]) and _is_null(alone["ci_high"])
    stated_95 = _results(warehouse, "ai2_arc/%/level_95")["reported"]
    assert stated_95["interval_method"] == "reported"
    assert (stated_95["ci_low"], stated_95["ci_high"]) == pytest.approx((0.05, 0.8), abs=TOLERANCE)
    kept = warehouse.rows("select run_id, ci_low, ci_high, ci_level from intermediate.int_benchmark_results_unnested "
                          "where run_id like 'ai2_arc/%/level_%' order by run_id")
    assert [row[1:] for row in kept] == [(0.1, 0.7, 0.9), (0.1, 0.7, 0.9), (0.05, 0.8, 0.95)]
    assert warehouse.scalar("select ci_level from intermediate.int_benchmark_results_unnested "
                            "where run_id like 'ai2_arc/%/1761001924.0'") is None


def test_an_interval_from_a_reported_standard_error_is_built_on_the_samples_scored(warehouse):
    """ai2_arc's 1 right of 3 with the standard error its trials give (1/3) gets the interval its computed row gets,
    Wilson's on 3 (n_eff = p(1 - p) / SE^2 x n / (n - 1) = 3): [0.061, 0.792]. On the dataset's 2376 the factor
    n / (n - 1) was 1 where it is 1.5, and the interval read [0.045, 0.841], Wilson's on 2."""
    reported = _results(warehouse, "ai2_arc/%/with_se")["reported"]
    computed = _results(warehouse, "ai2_arc/%/1761001924.0")["computed"]
    expected = _wilson(1, 3)
    assert reported["n_samples"] == 3 and reported["interval_method"] == "wilson_from_reported_se"
    assert reported["ci_low"] == pytest.approx(expected[0], abs=TOLERANCE)
    assert reported["ci_high"] == pytest.approx(expected[1], abs=TOLERANCE)
    assert (reported["ci_low"], reported["ci_high"]) == pytest.approx((computed["ci_low"], computed["ci_high"]),
                                                                      abs=TOLERANCE)


def test_a_standard_error_of_0_gives_the_wilson_interval_on_the_samples_scored(warehouse):
    """GAIA's 0 right of 2 with standard error 0: Wilson's interval on 2, [0, 0.658], as its computed row has it; on
    the dataset's 165 it read [0, 0.023], a certainty two questions cannot give."""
    reported = _results(warehouse, "GAIA/%/with_se_0")["reported"]
    computed = _results(warehouse, "GAIA/%/1770463617.0")["computed"]
    assert reported["n_samples"] == 2 and reported["dataset_n_samples"] == 165
    assert reported["ci_low"] == pytest.approx(0.0, abs=TOLERANCE)
    assert reported["ci_high"] == pytest.approx(_wilson(0, 2)[1], abs=TOLERANCE)
    assert reported["ci_high"] == pytest.approx(computed["ci_high"], abs=TOLERANCE)


def test_without_sample_ids_the_stated_num_samples_counts_and_a_0_is_no_count(warehouse):
    """A num_samples of 0 beside a score (the Inspect converter's when it read no samples) read as n_samples 0."""
    stated = _results(warehouse, "ai2_arc/%/num_samples")["reported"]
    assert (stated["n_samples"], stated["dataset_n_samples"]) == (3, 2376)
    assert (stated["ci_low"], stated["ci_high"]) == pytest.approx(_wilson(1, 3), abs=TOLERANCE)
    unknown = _results(warehouse, "ai2_arc/%/dataset_only")["reported"]
    assert _is_null(unknown["n_samples"]) and unknown["dataset_n_samples"] == 2376


def test_values_no_result_can_have_are_set_aside_and_warned_about_not_failing_the_build(warehouse, root):
    """A negative standard error or sample count, and an interval that leaves out its score or runs the wrong way,
    pass the schema; the marts' checks (standard_error >= 0, ci_low <= score <= ci_high) failed the whole build on
    them, so one such record held back every other result. They are NULL, named in unusable_values, and the build
    warns with their count."""
    for tag, named in UNUSABLE.items():
        reported = _results(warehouse, f"ai2_arc/%/{tag}")["reported"]
        assert reported["score"] == pytest.approx(1 / 3)
        assert _is_null(reported["ci_low"]) and _is_null(reported["ci_high"]), tag
        assert _is_null(reported["interval_method"]) and _is_null(reported["standard_error"]), tag
        assert warehouse.rows("select unusable_values from intermediate.int_benchmark_results_unnested "
                              "where run_id like ?", [f"ai2_arc/%/{tag}"]) == [(named,)]
    negative = _results(warehouse, "ai2_arc/%/negative")["reported"]
    assert _is_null(negative["n_samples"]) and _is_null(negative["dataset_n_samples"])
    assert warehouse.scalar("select count(*) from intermediate.int_benchmark_results_unnested "
                            "where unusable_values is not null") == len(UNUSABLE)
    results = json.loads((root / "target" / "run_results.json").read_text())["results"]
    warned = [r for r in results if "reported_values_are_usable" in r["unique_id"]]
    assert [(r["status"], r["failures"]) for r in warned] == [("warn", len(UNUSABLE))]
