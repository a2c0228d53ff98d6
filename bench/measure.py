"""Measuring one step: wall time, CPU time and peak resident memory of a command run in its own process, so each
number belongs to that step alone. Memory is the peak of the whole process tree (an ingest's worker processes
included), sampled from /proc every 50 ms; CPU time is the tree's too (user and system, as wait4 reports it for
the process and every descendant it waited for), so CPU seconds over wall seconds says how many cores were busy."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Measurement:
    seconds: float
    cpu_seconds: float  # user + system time of the whole process tree
    peak_rss_mb: float  # the whole process tree's resident memory at its peak
    returncode: int
    output: str


def run(command: list[str], *, env: dict[str, str] | None = None) -> Measurement:
    """Run `command`, wait for it, and return its wall time and its process tree's CPU time and peak RSS."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=PROJECT_ROOT,
        env={**os.environ, **(env or {})},
    )
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            peak[0] = max(peak[0], _tree_rss_kb(process.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output = process.stdout.read().decode("utf-8", "replace") if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return Measurement(seconds, cpu, max(peak[0], usage.ru_maxrss) / 1024, process.returncode, output)


def _tree_rss_kb(pid: int) -> int:
    total = 0
    try:
        with open(f"/proc/{pid}/status") as status:
            total += next((int(line.split()[1]) for line in status if line.startswith("VmRSS:")), 0)
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as children:
                total += sum(_tree_rss_kb(int(child)) for child in children.read().split())
    except (OSError, ValueError):
        pass
    return total


def python(code: str) -> Measurement:
    """Run a Python snippet in a fresh interpreter of the project's environment."""
    return run([sys.executable, "-c", code])


def evalhouse(*args: str) -> Measurement:
    return run([sys.executable, "-m", "evalhouse.cli", *args])


def machine() -> str:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    memory_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    load = os.getloadavg()[0]
    return f"{cores} cores, {memory_gb:.0f} GB memory, load average {load:.1f} at start"
