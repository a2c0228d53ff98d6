"""`make crashtest`: kill `evalhouse ingest` and `evalhouse build` with SIGKILL at random points, twenty times;
after each, run them again to the end and compare the published warehouse with a clean single run, every mart
row by row (evalhouse.checksums.mart_differences). Writes bench/CRASH.md.

The columns that say when something ran (ingested_at, batch_id, as_of, ...) differ between any two runs and are
left out; everything else must be equal, floats to 1e-9.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from bench.measure import PROJECT_ROOT, machine
from evalhouse.checksums import VOLATILE, mart_differences

HERE = Path(__file__).resolve().parent
def _evalhouse(db: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "evalhouse.cli", "--db", str(db), *args], cwd=PROJECT_ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _finish(process: subprocess.Popen, step: str) -> None:
    _, err = process.communicate()
    if process.returncode != 0:
        sys.exit(f"{step} failed (exit {process.returncode}): {err.decode(errors='replace')[-2000:]}")


def _run(db: Path, landing: Path) -> None:
    _finish(_evalhouse(db, "ingest", str(landing)), "ingest")
    _finish(_evalhouse(db, "build"), "build")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.crash", description=__doc__)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--work", type=Path, default=HERE / "data" / "crash")
    parser.add_argument("--results", type=Path, default=HERE / "CRASH.md")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    started = dt.datetime.now().astimezone()
    shutil.rmtree(args.work, ignore_errors=True)
    landing = args.work / "landing"

    from evalhouse.demo.generate import generate_demo

    generate_demo(landing, end_date=dt.date(2026, 11, 21))
    clean = args.work / "clean" / "w.duckdb"
    began = time.perf_counter()
    _finish(_evalhouse(clean, "ingest", str(landing)), "clean ingest")
    ingest_seconds = time.perf_counter() - began
    began = time.perf_counter()
    _finish(_evalhouse(clean, "build"), "clean build")
    build_seconds = time.perf_counter() - began
    with duckdb.connect(str(clean), read_only=True) as con:
        n_marts = con.execute("select count(*) from information_schema.tables where table_schema = 'marts'").fetchone()[0]
    print(f"clean run: ingest {ingest_seconds:.1f} s, build {build_seconds:.1f} s, {n_marts} marts", flush=True)

    rows = []
    for attempt in range(1, args.kills + 1):
        db = args.work / f"kill{attempt:02d}" / "w.duckdb"
        victim = "ingest" if attempt % 2 else "build"
        if victim == "build":
            _finish(_evalhouse(db, "ingest", str(landing)), "ingest before the killed build")
            process = _evalhouse(db, "build")
            delay = rng.uniform(0.5, build_seconds * 0.9)
        else:
            process = _evalhouse(db, "ingest", str(landing))
            delay = rng.uniform(0.3, ingest_seconds * 0.9)
        time.sleep(delay)
        finished_first = process.poll() is not None
        process.send_signal(signal.SIGKILL)
        process.wait()
        _run(db, landing)  # the rerun: ingest and build to the end
        differing = sorted({difference.split(":")[0] for difference in mart_differences(clean, db)})
        verdict = "identical" if not differing else "DIFFERENT"
        note = "finished before the kill" if finished_first else f"killed after {delay:.1f} s"
        rows.append((attempt, victim, note, verdict, ", ".join(differing)))
        print(f"  {attempt:2d} {victim:6s} {note}: {verdict} {', '.join(differing)}", flush=True)
        shutil.rmtree(db.parent, ignore_errors=True)

    identical = sum(1 for row in rows if row[3] == "identical")
    lines = [
        "# Crash test", "",
        f"`make crashtest` on {started:%Y-%m-%d %H:%M %Z}: {machine()}. The demo data (end date 2026-11-21) ingested",
        f"and built once cleanly (ingest {ingest_seconds:.1f} s, build {build_seconds:.1f} s, {n_marts} marts), then",
        f"{args.kills} times: `evalhouse ingest` or `evalhouse build` killed with SIGKILL at a random point, then both run",
        "again to the end. Each rerun's published marts are compared with the clean run's, row by row, every column",
        "but those that say when something ran (" + ", ".join(sorted(VOLATILE)) + "), floats to 1e-9 (a rerun",
        "that builds incrementally writes rows in another order, and sums in another order differ in the last bits).",
        "",
        f"**{identical} of {len(rows)} reruns gave a warehouse identical to the clean run.**", "",
        "| run | killed | when | result | marts that differ |", "|---|---|---|---|---|",
        *(f"| {a} | {v} | {n} | {r} | {d} |" for a, v, n, r, d in rows), "",
    ]
    args.results.write_text("\n".join(lines))
    print(f"wrote {args.results}: {identical} of {len(rows)} identical")
    return 0 if identical == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
