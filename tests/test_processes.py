"""The /proc helpers the process tests lean on treat a process or thread that ends while being looked at as ended,
not as an error: two CI runs failed on that race (FileNotFoundError, then ProcessLookupError)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests import processes

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def test_a_proc_file_opened_before_its_process_ended_raises_esrch_on_reading():
    """The kernel's side of the race the helpers absorb: the file opens while the process runs, then it ends."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        stat = open(f"/proc/{child.pid}/stat")
    finally:
        child.kill()
        child.wait()
    with stat, pytest.raises(ProcessLookupError):
        stat.read()


@pytest.mark.parametrize("ended", [FileNotFoundError, ProcessLookupError])
def test_a_thread_that_ends_while_being_read_counts_as_ended(monkeypatch, ended):
    """`running` skips a thread whose stat file vanished (ENOENT) or whose process ended mid-read (ESRCH), and
    `children` and `command_line` find nothing there."""
    def read_text(self, *args, **kwargs):
        raise ended(3, "No such process", str(self))

    monkeypatch.setattr(Path, "read_text", read_text)
    monkeypatch.setattr(processes.os, "listdir", lambda path: ["1"])
    assert processes.running(1) is False
    assert processes.children(1) == []
    assert processes.command_line(1) == ""


def test_an_ended_process_has_no_threads_children_or_command_line():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert processes.running(child.pid) is False
    assert processes.children(child.pid) == []
    assert processes.command_line(child.pid) == ""
