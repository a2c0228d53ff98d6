"""The operations behind `evalhouse rebuild`, `demo` and `serve`, composed from ingest, build and the app.

Every write to the warehouse happens under the writer lock; a fresh warehouse is built beside the published
one and swapped in only when the build passed, so readers see the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import duckdb

from evalhouse.build import run_dbt
from evalhouse.lock import writer_lock
from evalhouse.settings import PROJECT_ROOT, Settings
from ingest.cli import Progress, print_summary
from ingest.pipeline import IngestOptions, ingest_paths
from ingest.sources import file_sha256


def previously_ingested(db_path: Path) -> list[tuple[str, str]]:
    """(path, checksum) of every file the warehouse holds records from, as its manifest recorded them."""
    if not db_path.exists():
        return []
    with duckdb.connect(str(db_path), read_only=True) as con:
        rows = con.execute(
            "select source_path, file_sha256 from raw.ingest_files where status <> 'failed' "
            "group by source_path, file_sha256 order by source_path"
        ).fetchall()
    return [(path, sha) for path, sha in rows]


def rebuild(settings: Settings, *, out=None) -> bool:
    """A fresh warehouse from every file ingested before plus the landing folder; reports changed and vanished files."""
    out = out or sys.stdout
    inputs: list[str] = []
    for path, sha in previously_ingested(settings.db_path):
        if Path(path).is_relative_to(settings.landing):
            continue  # the landing folder is read whole below
        if not Path(path).exists():
            print(f"vanished: {path} (its records are not in the rebuilt warehouse)", file=out)
            continue
        if file_sha256(Path(path))[0] != sha:
            print(f"changed: {path} (its current content is loaded, not what was loaded before)", file=out)
        inputs.append(path)
    if settings.landing.exists():
        inputs.append(str(settings.landing))
    return fresh_build(settings, inputs, out=out)


def fresh_build(settings: Settings, inputs: Sequence[str], *, out=None) -> bool:
    """Ingest `inputs` into a new file, build it, and publish it in place of the old one if the build passed."""
    out = out or sys.stdout
    staging_db = settings.db_path.with_name(settings.db_path.stem + ".next.duckdb")
    with writer_lock(settings.db_path, "rebuild"):
        for leftover in (staging_db, staging_db.with_name(staging_db.name + ".wal")):
            leftover.unlink(missing_ok=True)
        if inputs:
            summary = ingest_paths(inputs, staging_db, IngestOptions(), Progress())
            print_summary(summary, "table", out)
        result = run_dbt(staging_db)
        if not result.ok:
            print("dbt build failed; the published warehouse is unchanged:", *result.failures, sep="\n  ", file=out)
            return False
        os.replace(staging_db, settings.db_path)
        settings.db_path.with_name(settings.db_path.name + ".wal").unlink(missing_ok=True)
    print(f"built {settings.db_path}", file=out)
    return True


def demo(settings: Settings, *, seed: int | None, serve_app: bool, port: int, out=None) -> int:
    """Sample data in every format, a warehouse built from it, and the app."""
    from evalhouse.demo.generate import generate_demo

    out = out or sys.stdout
    demo_dir = settings.landing / "demo"
    if demo_dir.exists():
        shutil.rmtree(demo_dir)
    summary = generate_demo(demo_dir) if seed is None else generate_demo(demo_dir, seed=seed)
    print(f"sample data written to {demo_dir} ({sum(summary.record_counts.values()):,} records)", file=out)
    if not fresh_build(settings, [str(settings.landing)], out=out):
        return 1
    if serve_app:
        return serve(settings, port=port)
    return 0


def serve(settings: Settings, *, port: int) -> int:
    """Run the Streamlit app on localhost until interrupted."""
    env = {**os.environ, "EVALHOUSE_DB": str(settings.db_path), "EVALHOUSE_LANDING": str(settings.landing)}
    command = [
        sys.executable, "-m", "streamlit", "run", str(PROJECT_ROOT / "app" / "streamlit_app.py"),
        "--server.port", str(port), "--server.address", "localhost", "--server.headless", "true",
        "--browser.gatherUsageStats", "false",
    ]
    print(f"serving the app on http://localhost:{port} (Ctrl+C to stop)")
    try:
        return subprocess.call(command, env=env)
    except KeyboardInterrupt:
        return 0
