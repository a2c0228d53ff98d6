"""A warehouse built once from the harness fixtures (tests/fixtures/inspect_ai/, tests/fixtures/lm_eval/) plus two
logs made here (one with a bare NaN score; one ingested while its eval was running, then again finished, at the same
path), with the trial marts and what they depend on (a selection: faster, and independent of the other areas')."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.pipeline import ingest_paths
from tests.conftest import CAUTIOUS, FIXTURES, Warehouse, built_once, built_warehouse_path
from tests.harness.archives import DEFLATED, members_of, rewrite, write_archive

INSPECT = FIXTURES / "inspect_ai"
LM_EVAL = FIXTURES / "lm_eval"
NAN_MODEL = "test/nan-scores"
REWRITTEN_MODEL = "test/rewritten-while-running"
TRIAL_MARTS = ("--select", "+fct_trials", "+fct_task_stability", "+fct_pass_at_k", "+fct_benchmark_results",
               "+dim_models", *CAUTIOUS)


def nan_score_log(out: Path) -> Path:
    """log_streaming.eval with its model renamed and sample 2's second epoch scored with a bare NaN, as Inspect
    writes an unscored value."""
    return rewrite(
        INSPECT / "log_streaming.eval", out,
        header_json=(b"azureai/Meta-Llama-3-1-405B-Instruct-jqf", NAN_MODEL.encode()),
        samples__2_epoch_2_json=(b'"value": "C"', b'"value": NaN'),
    )


def rewritten_log(out: Path, *, finished: bool, model: str = REWRITTEN_MODEL) -> Path:
    """log_streaming.eval under another model: while running (the header Inspect writes first and two samples) or
    finished (every member), written at the same path."""
    renamed = rewrite(INSPECT / "log_streaming.eval", out.with_suffix(".tmp"),
                      header_json=(b"azureai/Meta-Llama-3-1-405B-Instruct-jqf", model.encode()),
                      _journal__start_json=(b"azureai/Meta-Llama-3-1-405B-Instruct-jqf", model.encode()))
    members = members_of(renamed)
    renamed.unlink()
    if not finished:
        members = [(n, d) for n, d in members if n == "_journal/start.json" or n.endswith("epoch_1.json")]
    return write_archive(out, [(name, data, DEFLATED) for name, data in members])


@pytest.fixture(scope="session")
def harness_warehouse(tmp_path_factory) -> Warehouse:
    """The harness fixtures, ingested and built once per test session (tests/conftest.py, built_once). Read it;
    never write to it."""
    return Warehouse(built_warehouse_path(built_once(tmp_path_factory, "harness_warehouse", _build_harness_warehouse)))


def _build_harness_warehouse(root: Path) -> None:
    db_path = built_warehouse_path(root)
    extra = root / "made"
    extra.mkdir()
    running = ingest_paths([str(rewritten_log(extra / "rewritten.eval", finished=False))], db_path)
    summary = ingest_paths([str(INSPECT), str(LM_EVAL), str(nan_score_log(extra / "nan_score.eval")),
                            str(rewritten_log(extra / "rewritten.eval", finished=True))], db_path)
    assert running.quarantined == summary.quarantined == 0, [f.message for f in summary.files]
    Warehouse(db_path).build(*TRIAL_MARTS)
