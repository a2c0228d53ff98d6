"""`evalhouse build`: run `dbt build` (models, seeds and tests) against one warehouse file.

`run_dbt` runs dbt in this process (tests, docs); `build_warehouse` runs it in a process of its own that keeps
the file open for the whole build and releases it by exiting
(`python -m evalhouse.build DB RESULT.json PARENT FINGERPRINT full|incremental`).
That process dies with the `evalhouse build` that started it: killed or crashed, a build never leaves a dbt
process behind holding the working copy, where the next writer, finding the writer lock free, would meet DuckDB's lock.

Incremental models read only what is new since the last build, which is right only if the project that built the
rest is the same: a successful build records the project's fingerprint (models, macros, seeds, dbt_project.yml) in
the warehouse, and a build that finds another one rebuilds every model in full (`dbt build --full-refresh`).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from evalhouse.settings import PROJECT_ROOT

# What decides what the models compute: a change to any of these makes the next build a full one.
FINGERPRINTED = ("models", "macros", "seeds", "dbt_project.yml")
BUILD_STATE = "main.evalhouse_build_state"  # written by the on-run-end hook macros/build_state.sql


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    failures: tuple[str, ...]  # "model.evalhouse.fct_x: message" for each error or failed test
    n_nodes: int


def project_fingerprint() -> str:
    """sha256 over the paths and contents of the files that decide what the models compute."""
    digest = hashlib.sha256()
    for name in FINGERPRINTED:
        root = PROJECT_ROOT / name
        for path in sorted(root.rglob("*")) if root.is_dir() else [root]:
            if path.is_file():
                digest.update(f"{path.relative_to(PROJECT_ROOT)}\0".encode() + path.read_bytes() + b"\0")
    return digest.hexdigest()


def built_fingerprint(db_path: Path) -> str | None:
    """The fingerprint of the project the warehouse was last built with; None if it never was (or not since
    fingerprints were recorded)."""
    with duckdb.connect(str(db_path), read_only=True) as con:
        found = con.execute("select count(*) from information_schema.tables "
                            "where table_schema || '.' || table_name = ?", [BUILD_STATE]).fetchone()[0]
        row = con.execute(f"select fingerprint from {BUILD_STATE}").fetchone() if found else None
    return row[0] if row else None


def run_dbt(db_path: Path, command: Sequence[str] = ("build",), *, target_path: Path | None = None,
            quiet: bool = False, target: str | None = None, full_refresh: bool = False,
            fingerprint: str | None = None) -> BuildResult:
    """Run a dbt command on the project with EVALHOUSE_DB pointing at `db_path`, in this process. With a
    fingerprint, a build that passes records it (the on-run-end hook)."""
    from dbt.cli.main import dbtRunner  # imported late: dbt is slow to import and not needed by ingest

    args = [*command, "--project-dir", str(PROJECT_ROOT), "--profiles-dir", str(PROJECT_ROOT)]
    if full_refresh:
        args += ["--full-refresh"]
    if fingerprint is not None:
        args += ["--vars", json.dumps({"project_fingerprint": fingerprint})]
    if target is not None:
        args += ["--target", target]
    if target_path is not None:
        args += ["--target-path", str(target_path)]
    if quiet:
        args += ["--quiet"]
    with _environment(EVALHOUSE_DB=str(db_path), DBT_LOG_PATH=str((target_path or PROJECT_ROOT / "target") / "logs")):
        result = dbtRunner().invoke(args)
    failures: list[str] = []
    n_nodes = 0
    if result.result is not None and hasattr(result.result, "results"):
        for node_result in result.result.results:
            n_nodes += 1
            if str(node_result.status) in ("error", "fail", "runtime error"):
                failures.append(f"{node_result.node.unique_id}: {node_result.message}")
    if result.exception is not None:
        failures.append(f"dbt could not run: {result.exception}")
    return BuildResult(result.success and not failures, tuple(failures), n_nodes)


@contextmanager
def _environment(**values: str) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def build_warehouse(db_path: Path) -> BuildResult:
    """`dbt build` in a process of its own, its output shown as it runs; the file's lock ends with the process.
    In full when the project changed since the warehouse's last build."""
    fingerprint = project_fingerprint()
    built = built_fingerprint(db_path)
    full_refresh = built is not None and built != fingerprint
    if full_refresh:
        print("the project (models, macros or seeds) changed since the last build: every model is rebuilt in full",
              flush=True)
    with tempfile.TemporaryDirectory(prefix="evalhouse-build-") as scratch:
        result_file = Path(scratch) / "result.json"
        code = subprocess.call([sys.executable, "-m", "evalhouse.build", str(db_path), str(result_file),
                                str(os.getpid()), fingerprint, "full" if full_refresh else "incremental"],
                               cwd=PROJECT_ROOT)
        if not result_file.exists():
            return BuildResult(False, (f"the dbt process ended without a result (exit {code})",), 0)
        data = json.loads(result_file.read_text())
    return BuildResult(data["ok"], tuple(data["failures"]), data["n_nodes"])


def _die_with_parent(parent_pid: int) -> bool:
    """Ask Linux to SIGKILL this process when its parent ends; False if the parent is gone already."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (AttributeError, OSError):
        pass  # not Linux: the parent's end is checked below only
    return os.getppid() == parent_pid  # checked after prctl: a parent that died before it is caught here


def _main(argv: Sequence[str]) -> int:
    db_path, result_file = Path(argv[0]), Path(argv[1])
    if len(argv) > 2 and not _die_with_parent(int(argv[2])):
        return 1  # the `evalhouse build` that started this is gone: nothing may be published
    fingerprint = argv[3] if len(argv) > 3 else None
    result = run_dbt(db_path, target="build", fingerprint=fingerprint, full_refresh=len(argv) > 4 and argv[4] == "full")
    result_file.write_text(json.dumps({"ok": result.ok, "failures": list(result.failures), "n_nodes": result.n_nodes}))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
