"""The app's only door to DuckDB: short-lived read-only connections, parameters bound with `?`.

While a build holds the warehouse file, a query returns the last result it had (with a note for the page),
so an open dashboard never breaks a build and a build never breaks a page.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

PROJECT_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Result:
    frame: pd.DataFrame
    stale_since: dt.datetime | None = None  # set when the warehouse was busy and this is the last good result
    missing: bool = False  # the warehouse file (or the mart) does not exist yet


_last_good: dict[tuple[str, tuple[Any, ...]], tuple[pd.DataFrame, dt.datetime]] = {}
_lock = threading.Lock()


def warehouse_path() -> Path:
    value = os.environ.get("EVALHOUSE_DB")
    return Path(value) if value else PROJECT_ROOT / "warehouse" / "evalhouse.duckdb"


def query(sql: str, params: Sequence[Any] = ()) -> Result:
    """Run one read-only query. User input goes in `params`, never into `sql`."""
    path = warehouse_path()
    key = (sql, tuple(params))
    if not path.exists():
        return Result(pd.DataFrame(), missing=True)
    try:
        with duckdb.connect(str(path), read_only=True) as con:
            frame = con.execute(sql, list(params)).df()
    except duckdb.CatalogException:
        return Result(pd.DataFrame(), missing=True)
    except duckdb.IOException:
        with _lock:
            cached = _last_good.get(key)
        if cached is None:
            return Result(pd.DataFrame(), stale_since=dt.datetime.now(), missing=True)
        return Result(cached[0], stale_since=cached[1])
    with _lock:
        _last_good[key] = (frame, dt.datetime.now())
    return Result(frame)
