"""Classification in worker processes gives exactly what classification in the ingest process gives."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from ingest.allocator import keep_freed_memory
from tests.conftest import Warehouse, cognibench_record, eval_form_record, instance_record, write_lines
from tests.processes import children, command_line, running

pytestmark = pytest.mark.slow

COMPARED = {
    "eee_instance": "select record_id, natural_key, schema_version, record_json, repairs, source_line, record_sha256 from raw.eee_instance",
    "eval_form": "select record_id, record_json, source_line from raw.eval_form",
    "cognibench": "select record_id, record_json, source_line from raw.cognibench",
    "quarantine": "select source_line, format, error_kind, error_pointer, error_message, raw_text from raw.quarantine",
    "repairs": "select format, repair, n_records from raw.ingest_repairs",
    "files": "select status, n_lines, n_blank, n_accepted, n_repaired, n_quarantined, n_skipped from raw.ingest_files",
}


def _mixed_lines(n: int) -> list:
    lines = []
    for i in range(n):
        lines.append(instance_record(sample_id=f"s{i}"))
        if i % 97 == 0:
            lines += ["{broken", "", json.dumps([1]), eval_form_record(), cognibench_record()]
        if i % 131 == 0:
            lines.append(instance_record(schema_version="0.9.0"))
    return lines


def _ingest_both(tmp_path, *paths):
    serial, parallel = Warehouse(tmp_path / "serial.duckdb"), Warehouse(tmp_path / "parallel.duckdb")
    serial.ingest(*paths, workers=0)
    parallel.ingest(*paths, workers=2)
    return serial, parallel


def test_workers_load_and_quarantine_exactly_what_the_ingest_process_does(tmp_path):
    path = write_lines(tmp_path / "mixed.jsonl", _mixed_lines(5000))
    serial, parallel = _ingest_both(tmp_path, path)
    for name, sql in COMPARED.items():
        ordered = sql + " order by all"
        assert serial.rows(ordered) == parallel.rows(ordered), name
    assert serial.scalar("select count(*) from raw.quarantine") > 50


def test_workers_keep_the_lines_before_a_damaged_gzip_stream(tmp_path):
    lines = b"".join(json.dumps(instance_record(sample_id=str(i))).encode() + b"\n" for i in range(6000))
    data = gzip.compress(lines)
    path = tmp_path / "damaged.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    serial, parallel = _ingest_both(tmp_path, path)
    count = "select count(*) from raw.eee_instance"
    assert serial.scalar(count) == parallel.scalar(count) > 0
    assert parallel.scalar("select count(*) from raw.quarantine where error_kind = 'corrupt_gzip'") == 1


def test_if_the_workers_cannot_start_the_records_are_classified_in_process(tmp_path, monkeypatch):
    import sys
    import types

    # A `__main__` a spawned child cannot import: what AppTest leaves behind, or an embedding host.
    fake_main = types.ModuleType("__main__")
    fake_main.__file__ = str(tmp_path / "not_importable.py")
    (tmp_path / "not_importable.py").write_text("import module_that_does_not_exist\n")
    monkeypatch.setitem(sys.modules, "__main__", fake_main)
    path = write_lines(tmp_path / "a.jsonl", _mixed_lines(3000))
    serial = Warehouse(tmp_path / "serial.duckdb")
    serial.ingest(path, workers=0)
    fallback = Warehouse(tmp_path / "fallback.duckdb")
    fallback.ingest(path, workers=2)
    for name, sql in COMPARED.items():
        ordered = sql + " order by all"
        assert serial.rows(ordered) == fallback.rows(ordered), name


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's mallopt: Linux only")
def test_the_workers_allocator_setting_takes_effect_on_linux():
    assert keep_freed_memory() is True  # a worker that could not set it would still classify, only slower


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and relies on PR_SET_PDEATHSIG")
def test_the_workers_of_a_killed_ingest_end_with_it():
    """SIGKILL to the ingest leaves no classification worker behind: they waited on its pipe for ever, a core's
    worth of processes per killed run."""
    script = (
        "import sys, time\n"
        "from ingest.classify import ClassifyOptions\n"
        "from ingest.workers import Classifier\n"
        "Classifier(ClassifyOptions(False, None, 1 << 20), processes=2)\n"
        "print('ready', flush=True)\n"
        "time.sleep(600)\n"
    )
    ingest = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert ingest.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while time.monotonic() < deadline:
            workers = [pid for pid in children(ingest.pid) if "spawn_main" in command_line(pid)]
            if len(workers) == 2:
                break
            time.sleep(0.05)
        assert len(workers) == 2, "the pool never started its two workers"
        time.sleep(0.5)  # past the workers' initializer
    finally:
        ingest.kill()
        ingest.wait()
    deadline = time.monotonic() + 10
    while any(running(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in workers if running(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)  # do not leak them from the test either
    assert not left, "classification workers outlived the killed ingest"
