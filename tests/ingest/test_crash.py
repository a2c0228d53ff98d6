"""A process killed in the middle of a large file leaves no row of that file, and the next run loads it whole.

The kill is real (SIGKILL to a separate `evalhouse ingest` process), timed by watching how far the process has
read the file through /proc, so it lands while records of the file are being loaded.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evalhouse.publish import working_copy
from tests.conftest import Warehouse, instance_record

pytestmark = pytest.mark.slow

N_RECORDS = 30_000


def _write_big_file(path: Path) -> int:
    padding = "lorem ipsum " * 70  # about 1 KB a record, like real instance records
    with path.open("w") as handle:
        for i in range(N_RECORDS):
            record = instance_record(sample_id=f"s{i}", input={"raw": f"{i} {padding}", "reference": ["5"]})
            handle.write(json.dumps(record) + "\n")
    return path.stat().st_size


def _read_position(pid: int, target: Path) -> int | None:
    """How far the process has read `target`, or None when it does not have it open."""
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == str(target):
                    with open(f"/proc/{pid}/fdinfo/{fd}") as info:
                        return int(info.readline().split()[1])
            except OSError:
                continue
    except OSError:
        return None
    return None


@pytest.mark.skipif(not Path("/proc/self/fdinfo").exists(), reason="needs Linux /proc to time the kill")
def test_a_kill_mid_file_leaves_nothing_of_it_and_the_next_run_loads_it_whole(tmp_path):
    big = tmp_path / "big.jsonl"
    size = _write_big_file(big)
    warehouse = Warehouse(tmp_path / "w.duckdb")
    process = subprocess.Popen(
        [sys.executable, "-m", "evalhouse.cli", "--db", str(warehouse.path), "ingest", str(big)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    first_seen = None
    killed_at = None
    deadline = time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline:
        position = _read_position(process.pid, big.resolve())
        now = time.monotonic()
        if position is not None and first_seen is None:
            first_seen = now
        # The checksum pass reads the whole file in milliseconds; well after the file was first opened, a
        # position in the middle can only be the loading pass.
        if position is not None and first_seen and now - first_seen > 0.5 and 0.25 * size < position < 0.85 * size:
            process.send_signal(signal.SIGKILL)
            killed_at = position
            break
        time.sleep(0.005)
    process.wait(timeout=30)
    assert killed_at is not None, f"the ingest finished before it could be killed mid-file: {process.stderr.read()}"
    assert process.returncode == -signal.SIGKILL

    # Nothing of the file: no record, no quarantine row, no manifest row (in the working copy ingest writes).
    warehouse = Warehouse(working_copy(warehouse.path))
    counts = warehouse.row_counts()
    assert counts["eee_instance"] == 0
    assert counts["quarantine"] == 0
    assert counts["ingest_files"] == 0

    summary = warehouse.ingest(big)
    assert summary.files[0].status == "loaded"
    assert warehouse.scalar("select count(*) from raw.eee_instance") == N_RECORDS
    assert warehouse.scalar("select count(distinct source_line) from raw.eee_instance") == N_RECORDS
