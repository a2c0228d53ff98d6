"""The Rate an item page under AppTest: the form is drawn from the eval-form schema, a filled form lands validated in
the landing folder and is ingested, and a form the schema refuses (a score of 2 without a rationale) is shown back
with the pointer and the reason, every typed value kept."""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path

import pytest

from evalhouse import operations
from evalhouse.build import BuildResult
from evalhouse.lock import writer_lock
from evalhouse.publish import working_copy
from evalhouse.settings import Settings
from ingest.formats import FORMATS
from ingest.validate import Validators
from tests.app.conftest import APP_DIR, run_page
from tests.app.page_parts import problems
from tests.conftest import DEMO_END_DATE, Warehouse, instance_record, write_lines

pytestmark = pytest.mark.slow

DIMENSIONS = ("helpfulness", "instruction_following", "faithfulness", "safety", "overall_quality")
END_DATE = dt.date.fromisoformat(DEMO_END_DATE)
SCHEMA = json.loads((APP_DIR.parent / "schemas" / "eval_form" / "eval-form.schema.json").read_text())


def _widget(at, kind: str, suffix: str):
    """The form's widget whose key ends with `suffix` (keys are scoped to the item being rated)."""
    found = [w for w in getattr(at, kind) if w.key and w.key.endswith(suffix)]
    assert len(found) == 1, (suffix, [w.key for w in getattr(at, kind)])
    return found[0]


def _fill(at, scores: dict[str, int], rater: str = "h-tester") -> None:
    at.text_input(key="rate.rater.id").input(rater).run()
    for dimension in DIMENSIONS:
        _widget(at, "segmented_control", f".{dimension}.score").set_value(scores.get(dimension, 5)).run()
        _widget(at, "segmented_control", f".{dimension}.confidence").set_value("high").run()


def _submit(at) -> None:
    _widget(at, "button", ".submit").click().run()


def _saved(landing) -> list[dict]:
    files = sorted((landing / "ratings").glob("ratings_*.jsonl"))
    return [json.loads(line) for f in files for line in f.read_text(encoding="utf-8").splitlines()]


def test_the_form_is_drawn_from_the_schema(writable_demo, app_env):
    app_env(writable_demo.path)
    at = run_page("rate_item")
    assert not problems(at)

    for dimension in DIMENSIONS:
        score = _widget(at, "segmented_control", f".{dimension}.score")
        anchors = SCHEMA["properties"]["universal"]["properties"][dimension]["x-bars-anchors"]
        assert score.options == ["1", "2", "3", "4", "5"]
        assert all(text in score.help for text in anchors.values())
        assert _widget(at, "segmented_control", f".{dimension}.confidence").options == ["low", "medium", "high"]
    hazards = [w for w in at.selectbox if w.key and ".hazard." in w.key]
    assert len(hazards) == len(SCHEMA["properties"]["safety"]["properties"]["hazards"]["properties"])
    # the schema's tags, in words ("formatting error", "PII leakage"); the record keeps the schema's keys
    tags = SCHEMA["properties"]["issue_tags"]["items"]["enum"]
    assert _widget(at, "multiselect", ".issue_tags").options == [
        "PII leakage" if t == "pii_leakage" else t.replace("_", " ") for t in tags]
    # People rate here; LLM judges post to the API and hybrid reviews come from the review queue.
    assert _widget(at, "selectbox", "rate.rater.type").options == ["human (Eval Army)", "subject-matter expert",
                                                                   "end user"]

    # The rule that asks for a rationale is the schema's: it shows once the score or the confidence calls for it.
    assert not [c for c in at.caption if "Rationale required" in c.value]
    _widget(at, "segmented_control", ".faithfulness.confidence").set_value("medium").run()
    assert [c for c in at.caption if "Rationale required" in c.value]

    # The extension follows the task's modality: an agentic eval's response gets the agent block.
    at.selectbox(key="rate.eval").set_value("tau_retail").run()
    assert _widget(at, "selectbox", ".modality").value == "agent"
    assert _widget(at, "selectbox", ".ext.agent.task_success").options == ["not given", "complete", "partial", "failed"]
    assert _widget(at, "segmented_control", ".ext.agent.plan_quality").options == ["1", "2", "3", "4", "5"]


def test_a_score_of_2_without_a_rationale_is_refused_with_the_reason_and_nothing_typed_is_lost(
        writable_demo, app_env, tmp_path):
    landing = app_env(writable_demo.path, tmp_path / "landing")
    at = run_page("rate_item")
    _fill(at, {"helpfulness": 2})
    _widget(at, "text_area", ".notes").input("Answered a different question.").run()
    _widget(at, "multiselect", ".issue_tags").set_value(["incomplete"]).run()

    _submit(at)

    assert not at.exception
    message = " ".join(e.value for e in at.error)
    assert "/universal/helpfulness/rationale" in message and "Helpfulness, rationale" in message
    assert "required" in message and "Nothing you typed is lost" in message
    assert _widget(at, "segmented_control", ".helpfulness.score").value == 2
    assert _widget(at, "segmented_control", ".helpfulness.confidence").value == "high"
    assert _widget(at, "text_area", ".notes").value == "Answered a different question."
    assert _widget(at, "multiselect", ".issue_tags").value == ["incomplete"]
    assert at.text_input(key="rate.rater.id").value == "h-tester"
    assert not (landing / "ratings").exists()

    _widget(at, "text_area", ".helpfulness.rationale").input("Misses the user's second question.").run()
    _submit(at)
    assert not problems(at), problems(at)
    [record] = _saved(landing)
    assert record["universal"]["helpfulness"] == {"score": 2, "confidence": "high",
                                                  "rationale": "Misses the user's second question."}
    assert record["free_text"] == {"notes": "Answered a different question."}


def test_a_rating_lands_validated_in_the_landing_folder_and_is_ingested(writable_demo, app_env, tmp_path):
    landing = app_env(writable_demo.path, tmp_path / "landing")
    at = run_page("rate_item")
    evaluation, model, sample = (at.selectbox(key=k).value for k in ("rate.eval", "rate.model", "rate.sample"))
    _fill(at, {"overall_quality": 4})
    _widget(at, "selectbox", ".hazard.privacy.verdict").set_value("violating").run()
    _widget(at, "selectbox", ".hazard.privacy.severity").set_value(2).run()
    _widget(at, "text_input", ".hazard.privacy.rationale").input("Repeats the user's address.").run()
    _widget(at, "segmented_control", ".vs_reference").set_value("worse").run()

    _submit(at)

    assert not problems(at), problems(at)
    assert any("Loaded into the warehouse" in s.value for s in at.success)
    [record] = _saved(landing)
    assert Validators().validate(record, FORMATS["eval_form"], strict=True).ok
    assert record["rater"] == {"type": "human", "id": "h-tester"} and record["derived_from"] is None
    assert record["subject"] == {"model": model}
    assert (record["task"]["task_id"], record["task"]["suite_id"]) == (sample, evaluation)
    assert record["task"]["response"] and record["task"]["response_id"]
    assert record["safety"] == {"hazards": {"privacy": {"verdict": "violating", "severity": 2,
                                                        "rationale": "Repeats the user's address."}},
                                "is_violating_any": True}
    assert record["universal"]["vs_reference"] == "worse"
    loaded = Warehouse(working_copy(writable_demo.path)).rows(
        "select count(*) from raw.eval_form where natural_key = ?", [record["eval_id"]])
    assert loaded == [(1,)]
    # The form starts again empty for this item, and says it was rated already.
    assert _widget(at, "segmented_control", ".helpfulness.score").value is None
    assert any(record["eval_id"] in i.value for i in at.info)


def test_a_pasted_task_is_rated_without_a_warehouse_with_its_modality_extension(app_env, tmp_path):
    landing = app_env(tmp_path / "no" / "warehouse.duckdb", tmp_path / "landing")
    at = run_page("rate_item")
    assert not problems(at)
    assert any("evalhouse" in i.value for i in at.info)  # says how to get responses to pick from

    at.text_input(key="rate.pasted.task_id").input("support-0042").run()
    at.text_input(key="rate.pasted.model").input("acme/chat-7b").run()
    at.text_area(key="rate.pasted.prompt").input("Reset my password").run()
    at.text_area(key="rate.pasted.response").input("Go to settings.").run()
    _fill(at, {})
    _widget(at, "selectbox", ".modality").set_value("chat").run()
    _widget(at, "number_input", ".ext.chat.turn_count").set_value(3).run()
    _widget(at, "selectbox", ".ext.chat.tone").set_value("friendly").run()
    _widget(at, "segmented_control", ".ext.chat.persona_drift").set_value("no").run()
    _widget(at, "checkbox", ".no_risk_affirmed").check().run()
    _submit(at)

    assert not problems(at), problems(at)
    [record] = _saved(landing)
    assert record["task"] == {"task_id": "support-0042", "modality": "chat", "prompt": "Reset my password",
                              "response": "Go to settings."}
    assert record["extensions"] == {"chat": {"turn_count": 3, "persona_drift": False, "tone": "friendly"}}
    assert record["safety"] == {"hazards": {}, "is_violating_any": False, "no_risk_affirmed": True}
    assert Warehouse(working_copy(tmp_path / "no" / "warehouse.duckdb")).rows(
        "select count(*) from raw.eval_form where natural_key = ?", [record["eval_id"]]) == [(1,)]


def test_a_rating_submitted_while_the_warehouse_is_busy_is_kept_for_the_next_ingest(writable_demo, app_env, tmp_path):
    landing = app_env(writable_demo.path, tmp_path / "landing")
    at = run_page("rate_item")
    _fill(at, {})
    with writer_lock(writable_demo.path, "a build in a test"):
        _submit(at)
    assert not problems(at)
    assert any("busy" in w.value and "Nothing is lost" in w.value for w in at.warning)
    assert len(_saved(landing)) == 1
    assert not working_copy(writable_demo.path).exists()


@pytest.mark.parametrize("kind", ["demo", "team"])
def test_the_app_saves_in_the_demos_folder_while_it_serves_the_demos_warehouse_whichever_command_started_it(
        kind, app_env, tmp_path, monkeypatch):
    settings = Settings(tmp_path / "warehouse" / "evalhouse.duckdb", tmp_path / "landing")
    # Where the app saves is under test, not dbt (tests/models) nor the report (tests/report): the warehouse holds
    # the raw tables, and the page offers to rate a pasted task, as it does before any build.
    monkeypatch.setattr(operations, "build_warehouse", lambda work: BuildResult(True, (), ()))
    monkeypatch.setattr(operations, "write_this_weeks_report", lambda settings, out: None)
    started = []  # the environment each command starts the app with, in place of starting it
    monkeypatch.setattr(operations.os, "execve", lambda path, argv, env: started.append(env))
    if kind == "demo":  # `make demo`, which serves the app
        assert operations.demo(settings, seed=None, serve_app=True, port=0, end_date=END_DATE, out=io.StringIO()) == 0
    else:  # a team's warehouse
        operations.ingest(settings, [write_lines(tmp_path / "team" / "results.jsonl", [instance_record()])])
        assert operations.build(settings).ok
    operations.serve(settings, port=0)  # then `make serve` on the same warehouse
    app_env(Path(started[-1]["EVALHOUSE_DB"]), Path(started[-1]["EVALHOUSE_LANDING"]))

    at = run_page("rate_item")
    at.text_input(key="rate.pasted.task_id").input("support-0042").run()
    at.text_input(key="rate.pasted.model").input("acme/chat-7b").run()
    at.text_area(key="rate.pasted.response").input("Go to settings.").run()
    _fill(at, {})
    _submit(at)

    assert not problems(at), problems(at)
    assert any("Loaded into the warehouse" in s.value for s in at.success)
    demo_dir = settings.landing / "demo"
    saved_in, not_in = (demo_dir, settings.landing) if kind == "demo" else (settings.landing, demo_dir)
    assert len(_saved(saved_in)) == 1 and not (not_in / "ratings").exists()
    if kind == "demo":
        # The demo's warehouse is still the demo's alone: the next `make demo` runs, without --force.
        log = io.StringIO()
        assert operations.demo(settings, seed=None, serve_app=False, port=0, end_date=END_DATE, out=log) == 0
        assert "discarding 1 file(s)" in log.getvalue()
    else:
        assert [p.rsplit("/", 1)[-1] for p in operations.files_not_from_the_demo(settings)] == [
            "results.jsonl", _saved_file(saved_in).name]


def _saved_file(folder) -> Path:
    [path] = (folder / "ratings").glob("ratings_*.jsonl")
    return path
