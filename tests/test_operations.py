"""`evalhouse rebuild` recreates the warehouse that the files and their recorded ingest options give, and
`evalhouse demo` builds from its own files alone, never replaces a warehouse holding others unless forced, and
writes its report beside the warehouse it was given."""

from __future__ import annotations

import datetime as dt
import io
import json

import duckdb
import pytest

from evalhouse import operations
from evalhouse.build import BuildResult
from evalhouse.publish import working_copy
from evalhouse.settings import DEFAULT_DB, PROJECT_ROOT, Settings
from ingest.pipeline import IngestOptions
from ingest.sources import DEFAULT_MAX_RECORD_BYTES, file_sha256
from tests.conftest import Warehouse, eval_form_record, instance_record, write_lines

RAW_ROWS = "select source_path, source_line, record_sha256, repairs from raw.eee_instance order by 1, 2"
QUARANTINE = ("select source_path, source_line, format, error_kind, error_pointer, error_message "
              "from raw.quarantine order by 1, 2")
MANIFEST = ("select source_path, status, n_accepted, n_repaired, n_quarantined, strict, forced_format, "
            "max_record_bytes from raw.ingest_files order by 1")


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(db_path=tmp_path / "w.duckdb", landing=tmp_path / "landing")


@pytest.fixture
def no_dbt(monkeypatch) -> None:
    """The ingest half of a rebuild is under test; dbt's half is `evalhouse build`'s (tests/test_build_state.py)."""
    monkeypatch.setattr(operations, "build_warehouse", lambda work: BuildResult(True, (), ()))


def _repairable(**changes) -> dict:
    """A single-turn record that also carries its transcript: refused under --strict, repaired otherwise."""
    return instance_record(interactions=[{"role": "user", "content": "What is 2 + 3?", "turn_idx": 0}], **changes)


def _state(db) -> dict[str, list[tuple]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {sql: con.execute(sql).fetchall() for sql in (RAW_ROWS, QUARANTINE, MANIFEST)}


def test_a_rebuild_ingests_each_file_with_the_strict_and_format_it_was_ingested_with(settings, tmp_path, no_dbt):
    strict_file = write_lines(tmp_path / "in" / "strict.jsonl",
                              [_repairable(sample_id="a"), instance_record(sample_id="b")])
    forced_file = write_lines(tmp_path / "in" / "forced.jsonl", [instance_record(sample_id="c")])
    plain_file = write_lines(tmp_path / "in" / "plain.jsonl", [_repairable(sample_id="d")])
    landed = write_lines(settings.landing / "review.jsonl", [_repairable(sample_id="e")])
    operations.ingest(settings, [strict_file], IngestOptions(strict=True))
    operations.ingest(settings, [forced_file], IngestOptions(forced_format="eval_form"))
    operations.ingest(settings, [plain_file])
    operations.ingest(settings, [landed], IngestOptions(strict=True))
    before = _state(working_copy(settings.db_path))
    # What the strict and the forced ingests gave: refusals, where the defaults repair or detect.
    assert {_name(r[0]): (r[5], r[6], r[2], r[4]) for r in before[MANIFEST]} == {
        "strict.jsonl": (True, None, 1, 1), "forced.jsonl": (False, "eval_form", 0, 1),
        "plain.jsonl": (False, None, 1, 0), "review.jsonl": (True, None, 0, 1),
    }

    write_lines(settings.landing / "new.jsonl", [_repairable(sample_id="f")])  # the manifest does not know it
    with (tmp_path / "rebuild.log").open("w") as log:
        assert operations.rebuild(settings, out=log)

    after = _state(settings.db_path)
    for sql in (RAW_ROWS, QUARANTINE, MANIFEST):
        assert [r for r in after[sql] if _name(r[0]) != "new.jsonl"] == before[sql], sql
    # A landing file the manifest does not know loads with the defaults.
    assert [(r[1], r[3]) for r in after[RAW_ROWS] if _name(r[0]) == "new.jsonl"] == [
        (1, '["single_turn_transcript_ignored"]')
    ]


def test_a_rebuild_ingests_each_file_with_the_record_size_limit_it_was_ingested_with(settings, tmp_path, no_dbt):
    big = instance_record(sample_id="big", output={"raw": ["x" * 2000]})
    small = write_lines(tmp_path / "in" / "small_limit.jsonl", [instance_record(sample_id="a"), big])
    larger = write_lines(tmp_path / "in" / "larger_limit.jsonl", [instance_record(sample_id="b"), big])
    operations.ingest(settings, [small], IngestOptions(max_record_bytes=1500))
    operations.ingest(settings, [larger], IngestOptions(max_record_bytes=3000))
    before = _state(working_copy(settings.db_path))
    assert [(_name(r[0]), r[2], r[4], r[7]) for r in before[MANIFEST]] == [
        ("larger_limit.jsonl", 2, 0, 3000), ("small_limit.jsonl", 1, 1, 1500)]
    assert [(_name(r[0]), r[3]) for r in before[QUARANTINE]] == [("small_limit.jsonl", "too_large")]

    with (tmp_path / "rebuild.log").open("w") as log:
        assert operations.rebuild(settings, out=log)
    assert _state(settings.db_path) == before


def test_a_manifest_written_before_it_kept_the_limit_rebuilds_with_the_default(settings, tmp_path, no_dbt):
    path = write_lines(tmp_path / "in" / "old.jsonl", [instance_record(sample_id="a")])
    operations.ingest(settings, [path])
    work = working_copy(settings.db_path)
    with duckdb.connect(str(work)) as con:  # as a warehouse written before the column existed
        con.execute("alter table raw.ingest_files drop column max_record_bytes")
    assert operations.previously_ingested(work) == [
        operations.IngestedFile(str(path.resolve()), file_sha256(path)[0], False, None, None)]

    with (tmp_path / "rebuild.log").open("w") as log:
        assert operations.rebuild(settings, out=log)
    assert _state(settings.db_path)[MANIFEST] == [
        (str(path.resolve()), "loaded", 1, 0, 0, False, None, DEFAULT_MAX_RECORD_BYTES)]


def test_a_rebuild_reports_a_vanished_file_and_a_changed_one_once(settings, tmp_path, no_dbt):
    kept = write_lines(tmp_path / "kept.jsonl", [instance_record(sample_id="a")])
    gone = write_lines(tmp_path / "gone.jsonl", [instance_record(sample_id="b")])
    operations.ingest(settings, [kept, gone], IngestOptions(strict=True))
    write_lines(kept, [instance_record(sample_id="a"), instance_record(sample_id="c")])
    operations.ingest(settings, [kept], IngestOptions(strict=True))  # appended: loaded again, its new line only
    write_lines(kept, [instance_record(sample_id="d")])
    gone.unlink()
    with (tmp_path / "rebuild.log").open("w") as log:
        assert operations.rebuild(settings, out=log)
    lines = (tmp_path / "rebuild.log").read_text().splitlines()
    assert [line.split(":")[0] for line in lines if line.startswith(("vanished", "changed"))] == [
        "changed", "vanished"
    ]
    assert _state(settings.db_path)[MANIFEST] == [
        (str(kept.resolve()), "loaded", 1, 0, 0, True, None, DEFAULT_MAX_RECORD_BYTES)]


def test_a_rebuild_of_an_empty_landing_folder_passes_and_names_the_landing_files_it_does_not_read(
        settings, tmp_path, no_dbt):
    settings.landing.mkdir()
    out = io.StringIO()
    assert operations.rebuild(settings, out=out)  # an empty landing folder is no error to a rebuild
    write_lines(settings.landing / "a.jsonl", [instance_record(sample_id="a")])
    (settings.landing / "b.json.gz").write_bytes(b"\x1f\x8b")
    (settings.landing / ".DS_Store").write_bytes(b"")
    out = io.StringIO()
    assert operations.rebuild(settings, out=out)
    left = [line for line in out.getvalue().splitlines() if line.startswith("left out: ")]
    assert left == [line for line in left if "b.json.gz: gzip-compressed JSON" in line] and len(left) == 1
    assert _state(settings.db_path)[MANIFEST][0][:3] == (str((settings.landing / "a.jsonl").resolve()), "loaded", 1)


def test_the_demo_report_goes_beside_the_warehouse_it_was_given(tmp_path, monkeypatch):
    import evalhouse.report

    written = []

    def write_weekly_report(db_path, reports_dir, **_):
        written.append(reports_dir)
        return reports_dir / "weekly_2026-W47.html"

    # Which folder is under test, not the report (tests/report): two demos on two warehouses, and the default.
    monkeypatch.setattr(evalhouse.report, "write_weekly_report", write_weekly_report)
    for db in (tmp_path / "a" / "w.duckdb", tmp_path / "b" / "w.duckdb", DEFAULT_DB):
        operations.write_this_weeks_report(Settings(db, tmp_path / "landing"), out=io.StringIO())
    assert written == [tmp_path / "a" / "reports", tmp_path / "b" / "reports", PROJECT_ROOT / "reports"]


def _manifest_paths(db) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("select distinct source_path from raw.ingest_files order by 1").fetchall()
    return [row[0] for row in rows]


def _team_warehouse(settings, tmp_path) -> list[str]:
    """A warehouse holding a team's file, published, as the README's ingest and build give; its manifest."""
    team = write_lines(tmp_path / "team" / "results.jsonl", [instance_record(model_id="team/model-a")])
    operations.ingest(settings, [team])
    assert operations.build(settings).ok
    return _manifest_paths(settings.db_path)


def test_the_demo_refuses_a_warehouse_holding_a_teams_file_and_changes_nothing(settings, tmp_path, no_dbt):
    manifest = _team_warehouse(settings, tmp_path)
    published, work = settings.db_path.read_bytes(), working_copy(settings.db_path).read_bytes()
    with pytest.raises(operations.DemoRefused) as refused:
        operations.demo(settings, seed=None, serve_app=False, port=0, end_date=dt.date(2026, 11, 21))
    message = str(refused.value)
    # What, where, and the two ways on.
    assert str(settings.db_path) in message and str(tmp_path / "team" / "results.jsonl") in message
    assert "--db" in message and "--force" in message
    assert settings.db_path.read_bytes() == published and working_copy(settings.db_path).read_bytes() == work
    assert _manifest_paths(settings.db_path) == manifest
    assert not (settings.landing / "demo").exists()  # nothing generated either


def test_the_demo_refuses_a_teams_file_ingested_but_not_built_yet(settings, tmp_path, no_dbt):
    team = write_lines(tmp_path / "team" / "results.jsonl", [instance_record()])
    operations.ingest(settings, [team])  # in the working copy only: no build has published it
    assert not settings.db_path.exists()
    with pytest.raises(operations.DemoRefused, match="results.jsonl"):
        operations.demo(settings, seed=None, serve_app=False, port=0, end_date=dt.date(2026, 11, 21))
    assert _manifest_paths(working_copy(settings.db_path)) == [str(team.resolve())]


def test_the_demo_refusal_counts_each_file_once_and_tells_those_that_loaded_no_record(settings, tmp_path, no_dbt):
    team = tmp_path / "team"
    appended = write_lines(team / "appended.jsonl", [instance_record(sample_id="a")])
    operations.ingest(settings, [appended])
    write_lines(appended, [instance_record(sample_id="a"), instance_record(sample_id="b")])
    operations.ingest(settings, [appended])  # the same path again: a second manifest row
    other = write_lines(team / "other.jsonl", [instance_record(sample_id="c")])
    operations.ingest(settings, [other])
    assert operations.build(settings).ok  # both in the published manifest and in the working copy's
    refused_whole = write_lines(team / "bad.jsonl", ["{not json"])
    # other.jsonl's record with a CRLF ending: other bytes (a file skipped whole is not in the manifest), the same
    # record, loaded before
    copied = write_lines(team / "copy.jsonl", [json.dumps(instance_record(sample_id="c")).encode() + b"\r"])
    operations.ingest(settings, [refused_whole, copied])  # in the working copy only

    assert operations.files_not_from_the_demo(settings) == [
        str(p.resolve()) for p in (appended, other, refused_whole, copied)]
    with pytest.raises(operations.DemoRefused) as refused:
        operations.demo(settings, seed=None, serve_app=False, port=0, end_date=dt.date(2026, 11, 21))
    message = str(refused.value)
    assert "holds records from 2 file(s) that are not the demo's" in message, message
    assert str(appended.resolve()) in message and str(other.resolve()) in message
    assert "its manifest lists 2 more that loaded no record" in message, message


def test_a_warehouse_whose_other_files_loaded_no_record_is_refused_saying_so(settings, tmp_path, no_dbt):
    operations.ingest(settings, [write_lines(tmp_path / "team" / "bad.jsonl", ["{not json"])])
    with pytest.raises(operations.DemoRefused) as refused:
        operations.demo(settings, seed=None, serve_app=False, port=0, end_date=dt.date(2026, 11, 21))
    message = str(refused.value)
    assert "holds no record from a file that is not the demo's, but its manifest lists 1 such file(s)" in message
    assert "bad.jsonl) that loaded no record (every line quarantined" in message
    assert "would drop their quarantined lines and manifest rows" in message, message


def test_the_cli_demo_refusal_exits_2_and_says_what_to_do(settings, tmp_path, no_dbt, capsys):
    from evalhouse.cli import main

    _team_warehouse(settings, tmp_path)
    code = main(["--db", str(settings.db_path), "--landing", str(settings.landing), "demo", "--no-serve"])
    err = capsys.readouterr().err
    assert code == 2 and "not the demo's" in err and "--force" in err


@pytest.mark.slow
def test_the_demo_ingests_only_its_own_folder_and_force_replaces_a_teams_warehouse(settings, tmp_path, no_dbt,
                                                                                  monkeypatch):
    # The report is not under test (no dbt ran, so there are no marts to report on).
    monkeypatch.setattr(operations, "write_this_weeks_report", lambda settings, out: None)
    _team_warehouse(settings, tmp_path)
    # A team's files, the app's reviews and ratings and the API's records, in the landing folder the demo uses.
    for folder in ("team", "reviews", "ratings", "api"):
        write_lines(settings.landing / folder / f"{folder}.jsonl", [instance_record(model_id=f"team/{folder}")])
    log = io.StringIO()
    assert operations.demo(settings, seed=None, serve_app=False, port=0, end_date=dt.date(2026, 11, 21),
                           force=True, out=log) == 0
    assert "--force: replacing" in log.getvalue()
    demo_dir = settings.landing / "demo"
    paths = _manifest_paths(settings.db_path)
    assert paths and all(p.startswith(str(demo_dir) + "/") for p in paths), [
        p for p in paths if not p.startswith(str(demo_dir))]
    with duckdb.connect(str(settings.db_path), read_only=True) as con:
        team_records = "select count(*) from raw.eee_instance where record_json ->> 'model_id' like 'team/%'"
        assert con.execute(team_records).fetchone()[0] == 0
    for folder in ("team", "reviews", "ratings", "api"):  # the files themselves are left alone
        assert (settings.landing / folder / f"{folder}.jsonl").exists()

    # The demo's warehouse needs no --force to be rebuilt; a review saved in its app does not survive the rebuild.
    write_lines(demo_dir / "reviews" / "reviews_2026-11-21.jsonl", [instance_record(model_id="demo/reviewed")])
    log = io.StringIO()
    assert operations.demo(settings, seed=None, serve_app=False, port=0, end_date=dt.date(2026, 11, 21),
                           out=log) == 0
    assert "discarding 1 file(s) of reviews, ratings and posted records" in log.getvalue()
    assert _manifest_paths(settings.db_path) == paths


def test_a_rebuild_of_a_teams_warehouse_leaves_the_demos_folder_out(settings, tmp_path, no_dbt):
    manifest = _team_warehouse(settings, tmp_path)
    write_lines(settings.landing / "demo" / "eee" / "sample.jsonl", [instance_record(sample_id="demo")])
    landed = write_lines(settings.landing / "reviews" / "r.jsonl", [instance_record(sample_id="review")])
    with (tmp_path / "rebuild.log").open("w") as log:
        assert operations.rebuild(settings, out=log)
    assert _manifest_paths(settings.db_path) == sorted([*manifest, str(landed)])


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _demo_warehouse(settings) -> None:
    """A published warehouse of the demo's files alone: sample data, and a review its app saved in its folder."""
    operations.ingest(settings, [write_lines(settings.landing / "demo" / "eee" / "sample.jsonl",
                                             [instance_record(sample_id="demo")])])
    operations.ingest(settings, [write_lines(settings.landing / "demo" / "reviews" / "reviews_2026-11-21.jsonl",
                                             [eval_form_record()])], IngestOptions(strict=True))
    assert operations.build(settings).ok


def test_a_rebuild_after_a_demo_session_keeps_the_demos_warehouse_the_demos(settings, tmp_path, no_dbt):
    _demo_warehouse(settings)
    # A review that an app on a team's warehouse (--db warehouse/team.duckdb) saved in the shared landing folder.
    team_review = write_lines(settings.landing / "reviews" / "reviews_2026-11-21.jsonl", [eval_form_record()])
    log = io.StringIO()
    assert operations.rebuild(settings, out=log)
    demo_dir = settings.landing / "demo"
    assert _manifest_paths(settings.db_path) == [str(demo_dir / "eee" / "sample.jsonl"),
                                                 str(demo_dir / "reviews" / "reviews_2026-11-21.jsonl")]
    assert f"left out: 1 file(s) of {settings.landing} that are not the demo's ({team_review})" in log.getvalue()
    assert operations.files_not_from_the_demo(settings) == []  # so the next `evalhouse demo` runs without --force
    assert operations.saves_folder(settings) == settings.landing / "demo"


def test_a_moved_project_keeps_its_demos_warehouse_and_ingests_and_rebuilds_from_the_moved_files(tmp_path, no_dbt):
    before = Settings(tmp_path / "a" / "warehouse" / "w.duckdb", tmp_path / "a" / "landing")
    _demo_warehouse(before)
    rows = Warehouse(before.db_path).row_counts()
    (tmp_path / "a").rename(tmp_path / "b")  # `mv` of the project: warehouse and landing folder together
    moved = Settings(tmp_path / "b" / "warehouse" / "w.duckdb", tmp_path / "b" / "landing")

    # Still the demo's warehouse, though every source_path names the old place.
    assert all(p.startswith(str(tmp_path / "a")) for p in _manifest_paths(moved.db_path))
    assert operations.files_not_from_the_demo(moved) == []
    assert operations.saves_folder(moved) == moved.landing / "demo"
    # The same files ingested again at their new place are known: nothing is added.
    summary = operations.ingest(moved, [moved.landing])
    assert summary.accepted == 0 and {f.status for f in summary.files} == {"already_loaded"}
    assert Warehouse(working_copy(moved.db_path)).row_counts() == rows
    # A rebuild reads them where they are now, each with its options (the review --strict), and reports nothing.
    log = io.StringIO()
    assert operations.rebuild(moved, out=log)
    assert "vanished" not in log.getvalue() and "changed" not in log.getvalue(), log.getvalue()
    assert Warehouse(moved.db_path).row_counts() == rows
    manifest = "select source_path, strict, path_in_landing from raw.ingest_files order by 1"
    assert Warehouse(moved.db_path).rows(manifest) == [
        (str(moved.landing / "demo" / "eee" / "sample.jsonl"), False, "demo/eee/sample.jsonl"),
        (str(moved.landing / "demo" / "reviews" / "reviews_2026-11-21.jsonl"), True,
         "demo/reviews/reviews_2026-11-21.jsonl")]
