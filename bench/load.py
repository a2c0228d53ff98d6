"""`make loadtest`: twenty concurrent simulated dashboard sessions query every page's marts while ingest and build
run in a loop, for a few minutes. Every page query must succeed; latency percentiles go to bench/LOAD.md.

A session is a thread that visits the pages in random order and, for each, runs the queries that page really
sends (recorded by running the page once with AppTest), each on a new short-lived read-only connection, as the
app's db.py does. Everything stays on this machine: no network.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb

from bench.measure import PROJECT_ROOT, machine
from bench.page_queries import record_page_queries

HERE = Path(__file__).resolve().parent


def _writer_loop(db: Path, landing: Path, stop: threading.Event, log: list[str], counts: dict[str, int]) -> None:
    """Ingest a new file and build, again and again, until told to stop."""
    from tests.conftest import eval_form_record, instance_record, write_lines  # small valid records

    cycle = 0
    while not stop.is_set():
        cycle += 1
        path = write_lines(landing / f"load_{cycle:04d}.jsonl",
                           [instance_record(sample_id=f"load-{cycle}-{i}") for i in range(50)]
                           + [eval_form_record() for _ in range(20)])
        for step in (["ingest", str(path)], ["build"]):
            result = subprocess.run([sys.executable, "-m", "evalhouse.cli", "--db", str(db), *step],
                                    cwd=PROJECT_ROOT, capture_output=True, text=True)
            if result.returncode != 0:
                log.append(f"{step[0]} failed: {result.stderr[-500:]}")
            else:
                counts[step[0]] += 1


def _session(db: Path, pages: dict, deadline: float, seed: int, latencies: list[float],
             failures: list[str], lock: threading.Lock) -> None:
    rng = random.Random(seed)
    names = list(pages)
    while time.monotonic() < deadline:
        page = rng.choice(names)
        for sql, params in pages[page]:
            started = time.perf_counter()
            try:
                with duckdb.connect(str(db), read_only=True) as con:
                    con.execute(sql, params).fetchall()
            except Exception as exc:  # noqa: BLE001 - every failure is what this test counts
                with lock:
                    failures.append(f"{page}: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
                continue
            with lock:
                latencies.append(time.perf_counter() - started)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seconds", type=int, default=180)
    parser.add_argument("--work", type=Path, default=HERE / "data" / "load")
    parser.add_argument("--results", type=Path, default=HERE / "LOAD.md")
    args = parser.parse_args(argv)
    started = dt.datetime.now().astimezone()
    shutil.rmtree(args.work, ignore_errors=True)
    landing, extra = args.work / "landing", args.work / "extra"
    extra.mkdir(parents=True)
    db = args.work / "w.duckdb"

    from evalhouse.demo.generate import generate_demo

    generate_demo(landing, end_date=dt.date(2026, 11, 21))
    for step in (["ingest", str(landing)], ["build"]):
        subprocess.run([sys.executable, "-m", "evalhouse.cli", "--db", str(db), *step], cwd=PROJECT_ROOT,
                       check=True, capture_output=True)
    pages = record_page_queries(db)
    print(f"{sum(map(len, pages.values()))} queries on {len(pages)} pages; {args.sessions} sessions for "
          f"{args.seconds} s while ingest and build loop", flush=True)

    stop = threading.Event()
    writer_log: list[str] = []
    counts = {"ingest": 0, "build": 0}
    writer = threading.Thread(target=_writer_loop, args=(db, extra, stop, writer_log, counts), daemon=True)
    writer.start()
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    deadline = time.monotonic() + args.seconds
    sessions = [threading.Thread(target=_session, args=(db, pages, deadline, i, latencies, failures, lock))
                for i in range(args.sessions)]
    for session in sessions:
        session.start()
    for session in sessions:
        session.join()
    stop.set()
    writer.join()

    ms = [x * 1000 for x in latencies]
    lines = [
        "# Load test", "",
        f"`make loadtest` on {started:%Y-%m-%d %H:%M %Z}: {machine()}. {args.sessions} simulated dashboard sessions for",
        f"{args.seconds} s, each visiting the pages in random order and running every query the page sends (recorded",
        "from the pages themselves), each on a new read-only connection to the published warehouse, while",
        "`evalhouse ingest` and `evalhouse build` ran in a loop on the same warehouse (loopback only, no network).", "",
        "| measure | value |", "|---|---|",
        f"| page queries run | {len(latencies) + len(failures):,} |",
        f"| failed page queries | **{len(failures)}** |",
        f"| ingests / builds (each build published a new warehouse) completed meanwhile | {counts['ingest']} / {counts['build']} |",
        f"| writer errors | {len(writer_log)} |",
        f"| latency p50 | {_percentile(ms, 0.50):,.1f} ms |",
        f"| latency p90 | {_percentile(ms, 0.90):,.1f} ms |",
        f"| latency p99 | {_percentile(ms, 0.99):,.1f} ms |",
        f"| latency max | {max(ms, default=float('nan')):,.1f} ms |", "",
        *(f"- failure: {f}" for f in failures[:20]),
        *(f"- writer: {w}" for w in writer_log[:5]),
    ]
    args.results.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.results}: {len(failures)} failed of {len(latencies) + len(failures)}; "
          f"{counts['build']} builds published meanwhile")
    return 0 if not failures and not writer_log and counts["build"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
